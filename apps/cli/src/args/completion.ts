import type { Argv } from 'yargs';
import { BASH_COMPLETION, ZSH_COMPLETION } from './completion-scripts.js';
import { usageError } from './usage-errors.js';

/** The completion script runs `tensorops --get-yargs-completions tensorops WORDS...`. */
export const COMPLETIONS_FLAG = '--get-yargs-completions';

/**
 * The candidates for the words typed. yargs logs them into the parse output, for a command only
 * after its builder has run again on a later turn of the event loop; the last output once the
 * loop has turned holds them.
 */
export async function completions(parser: Argv, args: readonly string[]): Promise<string> {
  let text = '';
  parser.parse([...args], {}, (_error, _args, output) => {
    if (output) text = output;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return text;
}

/** `tensorops completion [bash|zsh]`: the script for the shell named, else for $SHELL. */
export function completionScript(
  rest: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string {
  const shell = rest[0] ?? (/zsh/.test(env.SHELL ?? '') ? 'zsh' : 'bash');
  if (rest.length > 1 || (shell !== 'bash' && shell !== 'zsh')) {
    throw usageError(`completion takes bash or zsh, got '${rest.join(' ')}'`);
  }
  return shell === 'zsh' ? ZSH_COMPLETION : BASH_COMPLETION;
}
