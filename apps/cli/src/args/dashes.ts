/**
 * yargs turns a bare `-` positional into "" or true and rejects `--output -`, so `-` is swapped
 * for a placeholder before parsing, and back after it ({@link typedArgs}, {@link typedMessage}).
 * Words after `--` are operands even when they start with `-`: they are hidden from yargs behind
 * a prefix (so they fill positionals instead of reading as options) and unwrapped after parsing,
 * as is stdin with a slice (`-[1:3]`), which no option spells.
 * Both start with a NUL, which no word of a command line can hold.
 */
const STDIO = 'stdio';
const OPERAND = 'operand:';
const NUL = '\u0000';

/** argv with `-` and the words after `--` hidden from yargs (see above). */
export function protectDashes(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const operands = end === -1 ? [] : argv.slice(end + 1);
  return [
    ...options.map((a) => (a === '-' ? NUL + STDIO : a.startsWith('-[') ? NUL + OPERAND + a : a)),
    ...operands.map((a) => (a === '-' ? NUL + STDIO : NUL + OPERAND + a)),
  ];
}

/** `text` with the placeholders of {@link protectDashes} (their NUL spelt `nul`) as typed. */
function typed(text: string, nul: string): string {
  return text.replaceAll(nul + STDIO, '-').replaceAll(nul + OPERAND, '');
}

/** Every parsed value as the user typed it: no placeholder ever reaches a command. */
export function typedArgs(args: Record<string, unknown>): Record<string, unknown> {
  const unwrap = (v: unknown): unknown =>
    typeof v === 'string' ? typed(v, NUL) : Array.isArray(v) ? v.map(unwrap) : v;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, unwrap(v)]));
}

/** A yargs message in the user's words; yargs quotes some values as JSON, the NUL as `\u0000`. */
export function typedMessage(message: string): string {
  return typed(typed(message, NUL), JSON.stringify(NUL).slice(1, -1));
}

/** `-`: standard input or output. */
export function isStdio(ref: string): boolean {
  return ref === '-';
}
