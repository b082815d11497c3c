import type { Argv } from 'yargs';
import { BASH_COMPLETION, FISH_COMPLETION, ZSH_COMPLETION } from './completion-scripts.js';
import { tensorNameCandidates } from './tensor-name-completion.js';
import { usageError } from './usage-errors.js';

/** The completion script runs `tensorops --get-yargs-completions tensorops WORDS...`. */
export const COMPLETIONS_FLAG = '--get-yargs-completions';

/**
 * The candidates for the words typed. yargs logs them into the parse output, for a command only
 * after its builder has run again on a later turn of the event loop; the last output once the
 * loop has turned holds them.
 */
export async function completions(
  parser: Argv,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const zsh = isZsh(env);
  const names = await tensorNameCandidates(args.slice(2), zsh);
  if (names !== undefined) return names.join('\n');
  let text = '';
  parser.parse([...args], {}, (_error, _args, output) => {
    if (output) text = output;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return text
    .split('\n')
    .filter((line) => !DOUBLE_DASHED_ALIAS.test(line))
    .join('\n');
}

/**
 * `--o`, `--q`: yargs offers each one-letter alias with two dashes after a typed `--`; only `-o`
 * is a flag. (zsh candidates carry `:description`.)
 */
const DOUBLE_DASHED_ALIAS = /^--[^-:](:|$)/;

/** yargs writes zsh candidates (with descriptions) when $SHELL is zsh. */
function isZsh(env: Readonly<Record<string, string | undefined>>): boolean {
  return /zsh/.test(env.SHELL ?? '');
}

const SCRIPTS: Readonly<Record<string, string>> = {
  bash: BASH_COMPLETION,
  zsh: ZSH_COMPLETION,
  fish: FISH_COMPLETION,
};

/** `tensorops completion [bash|zsh|fish]`: the script for the shell named, else for $SHELL. */
export function completionScript(
  rest: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string {
  const ofShell = /(zsh|fish)$/.exec(env.SHELL ?? '')?.[1] ?? 'bash';
  const shell = rest[0] ?? ofShell;
  const script = SCRIPTS[shell];
  if (rest.length > 1 || script === undefined || !Object.hasOwn(SCRIPTS, shell)) {
    throw usageError(`completion takes bash, zsh or fish, got '${rest.join(' ')}'`);
  }
  return script;
}
