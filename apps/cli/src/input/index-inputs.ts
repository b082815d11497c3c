import { createReadStream } from 'node:fs';
import type { Tensor } from '@tensorops/core';
import { decodeNpy, parseIndexText } from '@tensorops/io';
import { readStream } from '@tensorops/io/node';
import { isHttpUrl, printableUrl } from '@tensorops/io/node/internal';
import type { Argv, Options } from 'yargs';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';
import type { ParsedArgs } from '../commands/command.js';
import type { WholeTensorInputs } from '../launch/huge-pages.js';
import type { CliIO } from '../run/cli-io.js';
import { loadDataOperandText } from './data-text-input.js';
import { loadTensor } from './inputs.js';
import { isStdinRef } from './sliced-ref.js';

/** Index files read as text (parseIndexText's grammar), chosen by extension. */
export const INDEX_TEXT_EXTENSIONS = ['.txt', '.csv', '.tsv', '.json'] as const;

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];

/** What the positional index operand of gather, gather-elements and gather-nd says it accepts. */
export const INDEX_REF_HELP =
  'a tensor reference like DATA, a .txt/.csv/.tsv/.json file of integers, or - (.npy or text on stdin)';

/** The index operand: the optional positional INDICES_FILE, or inline `--indices`; one of them. */
export function withIndexOperand(y: Argv, describe: string): Argv {
  return y.positional('indices_file', {
    type: 'string',
    describe: `${describe}: ${INDEX_REF_HELP}`,
  });
}

/** `--indices`, the inline form of the index operand of {@link withIndexOperand}. */
export const INDICES_FLAG = {
  indices: {
    type: 'string',
    requiresArg: true,
    describe:
      "the indices inline instead of INDICES_FILE, shaped as numpy reads them: '3,1,4' is 1-D, 3 a scalar index, '[[0,1],[2,3]]' keeps its nesting",
  },
} as const satisfies Record<string, Options>;

/** Loads the index operand of {@link withIndexOperand}; `-` may stand for stdin once overall. */
export async function loadIndexOperand(args: ParsedArgs, io: CliIO): Promise<Tensor> {
  const file = args.indices_file as string | undefined;
  const inline = args.indices as string | undefined;
  if (file !== undefined && inline !== undefined) {
    throw usageError('give the indices as INDICES_FILE or --indices, not both');
  }
  if (inline !== undefined) return parseIndexText(inline, '--indices');
  if (file === undefined) throw usageError('no indices: give INDICES_FILE, - or --indices');
  return loadIndices(file, io);
}

/** stdin holds one input: DATA and INDICES_FILE may not both be `-`. */
export function checkStdinOnce(dataRef: string, args: ParsedArgs): void {
  const indicesRef = args.indices_file as string | undefined;
  if (isStdinRef(dataRef) && indicesRef !== undefined && isStdinRef(indicesRef)) {
    throw usageError('standard input (-) can be used for one input only');
  }
}

/**
 * An integer tensor from the command line: `-` is stdin (.npy when it starts with the .npy
 * magic, text otherwise), a .txt/.csv/.tsv/.json path is text, anything else a tensor reference.
 */
export async function loadIndices(ref: string, io: CliIO): Promise<Tensor> {
  if (isStdio(ref)) {
    const bytes = await readStream(io.stdin, { label: 'stdin' });
    return startsWithNpyMagic(bytes) ? decodeNpy(bytes) : parseIndexText(bytes, 'stdin');
  }
  const lower = ref.toLowerCase();
  if (INDEX_TEXT_EXTENSIONS.some((ext) => lower.endsWith(ext))) {
    if (isHttpUrl(ref)) {
      throw usageError(
        `${printableUrl(ref)}: index text is read from a file or stdin, not a URL (a .npy URL is read)`,
      );
    }
    return parseIndexText(await readTextFile(ref), ref);
  }
  return loadTensor(ref, io);
}

function startsWithNpyMagic(bytes: Uint8Array): boolean {
  return NPY_MAGIC.every((b, i) => bytes[i] === b);
}

/** The whole file, through the bounded stream reader (FIFOs and /dev/fd/N included). */
function readTextFile(path: string): Promise<Uint8Array> {
  return readStream(createReadStream(path), { label: path });
}

/** DATA and INDICES_FILE as typed (undefined with inline --indices): what a large run reads. */
export function dataAndIndexRefs(args: ParsedArgs): WholeTensorInputs {
  return [String(args.data), args.indices_file as string | undefined];
}

/** DATA (a tensor reference, text data or -), whole; stdin serves it or the index operand. */
export async function loadDataOperand(args: ParsedArgs, io: CliIO): Promise<Tensor> {
  const dataRef = String(args.data);
  checkStdinOnce(dataRef, args);
  return (
    (await loadDataOperandText(args, io)) ?? (await loadTensor(dataRef, io, { slice: args.slice }))
  );
}

/** DATA (see loadDataOperand) and the index operand. */
export async function loadDataAndIndices(
  args: ParsedArgs,
  io: CliIO,
): Promise<[data: Tensor, indices: Tensor]> {
  const data = await loadDataOperand(args, io);
  return [data, await loadIndexOperand(args, io)];
}
