// Text read as data (`convert rows.csv rows.npy`, `show rows.csv`, the DATA of the gathers): the
// kind of text from the extension or --from, its values read in chunks from the file or stdin by
// io's readDataText. A reference's slice (`rows.csv[::2]`) is split off before its kind is told.

import { createReadStream } from 'node:fs';
import type { Tensor } from '@tensorops/core';
import { DATA_TEXT_DTYPES, type DataTextDtype, readDataText, sliceOfTensor } from '@tensorops/io';
import { resolveTensorRefOnDisk } from '@tensorops/io/node';
import { isHttpUrl, isShardIndexPath, printableUrl } from '@tensorops/io/node/internal';
import type { Options } from 'yargs';
import { isStdio } from '../args/dashes.js';
import { choiceOption, integerFlag, integerOption } from '../args/flag-values.js';
import { usageError } from '../args/usage-errors.js';
import type { ParsedArgs } from '../commands/command.js';
import type { CliIO } from '../run/cli-io.js';
import { fittedOrThrow } from './inputs.js';
import { isStdinRef, splitSlicedRef } from './sliced-ref.js';

const TEXT_KINDS = ['csv', 'tsv', 'txt', 'json'] as const;
type TextKind = (typeof TEXT_KINDS)[number];

/** The delimiter of each kind of rows when --delimiter leaves it out (undefined: blanks). */
const DEFAULT_DELIMITERS: Record<Exclude<TextKind, 'json'>, string | undefined> = {
  csv: ',',
  tsv: '\t',
  txt: undefined,
};

/** The flags of an input read as text data. */
export const TEXT_INPUT_FLAGS = {
  from: {
    type: 'string',
    choices: TEXT_KINDS,
    requiresArg: true,
    describe:
      'read the input as text data: csv, tsv, txt (values between blanks) or json (default: by the .csv/.tsv/.txt/.json extension; - is .npy unless --from)',
  },
  dtype: {
    type: 'string',
    choices: DATA_TEXT_DTYPES,
    requiresArg: true,
    describe:
      'text input: the dtype of its values, each rounded once from its decimal (default: float64, as numpy.loadtxt)',
  },
  delimiter: {
    type: 'string',
    requiresArg: true,
    describe:
      "text input: the one character between values, \\t for a tab (default: ',' for csv, a tab for tsv, blanks for txt)",
  },
  'skip-rows': integerFlag('text input: lines to skip at its start, comments included', 0),
} as const satisfies Record<string, Options>;

/**
 * The text flags of the gathers: they read DATA alone, and the index operand keeps its own
 * grammar of integers (index-inputs.ts), whatever these flags say.
 */
export const DATA_TEXT_INPUT_FLAGS: Record<string, Options> = {
  ...Object.fromEntries(
    Object.entries(TEXT_INPUT_FLAGS).map(([name, flag]) => [
      name,
      {
        ...flag,
        describe: flag.describe.replace(/^text input: /, 'text DATA, never the indices: '),
      },
    ]),
  ),
  from: {
    ...TEXT_INPUT_FLAGS.from,
    describe:
      'read DATA on stdin (-) as text data: csv, tsv, txt (values between blanks) or json; never the indices (a DATA file is text by its .csv/.tsv/.txt/.json extension)',
  },
};

/** The kind of text data `ref` is read as, or undefined for a tensor file. */
function textKind(ref: string, args: ParsedArgs): TextKind | undefined {
  if (args.from !== undefined) return choiceOption('from', args.from, TEXT_KINDS, 'csv');
  // A sharded checkpoint's index is JSON, but names tensors, not values.
  if (isStdio(ref) || isShardIndexPath(ref)) return undefined;
  // FILE:NAME is a tensor of FILE, whatever NAME ends with (`arrays.npz:x.json`).
  if (resolveTensorRefOnDisk(ref).name !== undefined) return undefined;
  const lower = ref.toLowerCase();
  return TEXT_KINDS.find((kind) => lower.endsWith(`.${kind}`));
}

/**
 * The part of text data `reference` asks for (its slice, `[...]` or --slice, then `head` entries
 * along axis 0), or undefined when it is a tensor file (then the text flags are a usage error).
 */
export async function loadDataTextInput(
  reference: string,
  args: ParsedArgs,
  io: CliIO,
  head?: number,
): Promise<Tensor | undefined> {
  const { ref, slice } = splitSlicedRef(reference, args.slice);
  const kind = textKind(ref, args);
  const skipRows = integerOption('skip-rows', args['skip-rows'], 0);
  if (skipRows < 0) {
    throw usageError(`--skip-rows takes a count of lines (0 or more), got ${skipRows}`);
  }
  const given = [
    args.dtype !== undefined && 'dtype',
    args.delimiter !== undefined && 'delimiter',
    skipRows !== 0 && 'skip-rows',
  ].filter((flag) => flag !== false);
  // A URL is named without its query string or credentials.
  const shown = isHttpUrl(ref) ? printableUrl(ref) : ref;
  if (kind === undefined) {
    if (given.length === 0) return undefined;
    const input = isStdio(ref) ? '- without --from is .npy' : `${shown} is a tensor file`;
    throw usageError(
      `--${given[0]} reads text data (.csv, .tsv, .txt, .json, or --from), and ${input}`,
    );
  }
  if (isHttpUrl(ref)) {
    throw usageError(`${shown}: text data is read from a file or stdin, not a URL`);
  }
  if (kind === 'json' && given.some((flag) => flag !== 'dtype')) {
    throw usageError('--delimiter and --skip-rows read rows of text; JSON has none');
  }
  const typed = args.delimiter === undefined ? undefined : String(args.delimiter);
  const delimiter = typed === '\\t' ? '\t' : typed;
  const stdin = isStdio(ref);
  const label = stdin ? 'stdin' : ref;
  const tensor = await readDataText(stdin ? io.stdin : createReadStream(ref), {
    label,
    dtype: choiceOption<DataTextDtype>('dtype', args.dtype, DATA_TEXT_DTYPES, 'float64'),
    json: kind === 'json',
    delimiter: kind === 'json' ? undefined : (delimiter ?? DEFAULT_DELIMITERS[kind]),
    skipRows,
  });
  const picks = fittedOrThrow(label, tensor.shape, slice, head);
  return picks === undefined ? tensor : sliceOfTensor(tensor, picks);
}

/**
 * The DATA of a gather read as text data, its slice (--slice or DATA[...]) applied; undefined
 * when DATA is a tensor file.
 */
export async function loadDataOperandText(
  args: ParsedArgs,
  io: CliIO,
): Promise<Tensor | undefined> {
  const data = String(args.data);
  // Two inputs: --from names the kind of DATA on stdin alone, so that it is never taken for the
  // kind of the indices (whose text on stdin or in a file is told by its own grammar).
  if (args.from !== undefined && !isStdinRef(data)) {
    throw usageError(
      "--from reads DATA on stdin (-) as text, never the indices; a DATA file is text by its .csv/.tsv/.txt/.json extension (any other: give - and '< FILE')",
    );
  }
  return loadDataTextInput(data, args, io);
}
