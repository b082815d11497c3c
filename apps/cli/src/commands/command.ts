import type { Tensor } from '@tensorops/core';
import type { Argv } from 'yargs';
import type { CliIO } from '../cli-io.js';

/** What a command hands to output.ts; commands compute, they never render. */
export type CommandResult = {
  readonly kind: 'tensor';
  readonly tensor: Tensor;
  readonly label: string;
};

export type ParsedArgs = Readonly<Record<string, unknown>>;

export interface CommandSpec {
  /** yargs command string, e.g. `gather <data> <indices>`. */
  readonly command: string;
  readonly describe: string;
  readonly builder: (yargs: Argv) => Argv;
  readonly run: (args: ParsedArgs, io: CliIO) => Promise<CommandResult>;
}

/**
 * yargs prints examples in two columns that wrap mid-command at 80 columns; the purpose as a
 * shell comment on its own line keeps each command whole and pasteable.
 */
export function examples(
  list: ReadonlyArray<readonly [command: string, purpose: string]>,
): [string, string][] {
  return list.flatMap(([command, purpose]): [string, string][] => [
    [`# ${purpose}`, ''],
    [command, ''],
  ]);
}
