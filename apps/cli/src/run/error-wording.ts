// The CLI's wording of library errors: the libraries name their own options (maxDownload, the
// headers option); on the command line the same advice names the flag or variable that sets them.

/** Library phrase -> command-line phrase, applied to every error message the CLI prints. */
const CLI_PHRASES: readonly (readonly [RegExp, string])[] = [
  [/ with maxDownload: (\S+) \(now (\d+)\)/, ' with --max-download $1 (now $2)'],
  [
    / \(send credentials in the headers option\)/,
    ' (pass credentials with --http-header or TENSOROPS_HTTP_HEADERS)',
  ],
  [/; the retryMs option allows more time\)/, '; --timeout allows more time)'],
  [/ \(the signal option\)$/, '; --timeout allows more time'],
];

/** `message` with the libraries' option names replaced by the CLI's flags. */
export function cliWording(message: string): string {
  let out = message;
  for (const [phrase, cli] of CLI_PHRASES) out = out.replace(phrase, cli);
  return out;
}
