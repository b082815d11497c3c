import type { Tensor } from '@tensorops/core';
import type { BeamSequences } from '@tensorops/gather-tree';
import type { TensorStream } from '@tensorops/io/node';
import type { Argv, Options } from 'yargs';
import type { WholeTensorInputs } from '../launch/huge-pages.js';
import type { InspectReport } from '../output/inspect-report.js';
import type { CliIO } from '../run/cli-io.js';

/** An output tensor by name (undefined: the sink picks one), its data streamed. */
export interface OutputEntry {
  readonly name: string | undefined;
  readonly data: TensorStream;
}

/**
 * What standard output gets when it is no terminal and no format is asked for: `data` (.npy
 * bytes, for the next program) or `text` (tab-separated rows, for a reader).
 */
export type PipedAs = 'data' | 'text';

/** What a command hands to the output layer; commands compute, they never render. */
export type CommandResult =
  | {
      readonly kind: 'tensor';
      readonly tensor: Tensor;
      readonly label: string;
      readonly piped?: PipedAs;
    }
  | {
      readonly kind: 'stream';
      readonly stream: TensorStream;
      readonly label: string;
      readonly piped?: PipedAs;
      /** Releases the input files the stream reads from. */
      readonly dispose: () => Promise<void>;
    }
  | {
      readonly kind: 'tensors';
      readonly entries: readonly OutputEntry[];
      readonly metadata: Readonly<Record<string, string>> | null;
      readonly output: string;
      readonly compress: boolean;
      readonly label: string;
      readonly dispose: () => Promise<void>;
    }
  | {
      readonly kind: 'inspect';
      readonly reports: readonly InspectReport[];
      /** inspect --verify: for each file, the line saying what was checked. */
      readonly verified: readonly string[];
    }
  | { readonly kind: 'beams'; readonly beams: BeamSequences };

export type ParsedArgs = Readonly<Record<string, unknown>>;

export interface CommandSpec {
  /** yargs command string, e.g. `gather <data> [indices_file]`. */
  readonly command: string;
  readonly describe: string;
  /** Every flag the command takes, by long name, in the order its `--help` lists them. */
  readonly options: Readonly<Record<string, Options>>;
  /** The command's positionals and examples. */
  readonly builder: (yargs: Argv) => Argv;
  /** Why a flag other commands take is no use to this one, where that says more than "not taken". */
  readonly refuses?: Readonly<Record<string, string>>;
  /**
   * A command that holds its data and index tensors whole, with an output as large, and whose
   * large runs measured faster with huge pages, names those operands here: a large run of it
   * starts again with huge pages (launch/huge-pages.ts).
   */
  readonly wholeTensorInputs?: (args: ParsedArgs) => WholeTensorInputs;
  readonly run: (args: ParsedArgs, io: CliIO) => Promise<CommandResult>;
}

/** The word that names the command on the command line. */
export function commandName(spec: Pick<CommandSpec, 'command'>): string {
  return spec.command.split(' ')[0] ?? spec.command;
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
