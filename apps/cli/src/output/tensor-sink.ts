import type { Tensor } from '@tensorops/core';
import { parseOutputRef } from '@tensorops/io';
import {
  streamOfTensor,
  type TensorStream,
  type WriteNote,
  writeOutputPath,
} from '@tensorops/io/node';
import { type EncodedTensors, encodeTensors, isTensorStream } from '@tensorops/io/node/internal';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';
import type { PipedAs } from '../commands/command.js';
import { delimitedChunks } from '../format/delimited-text.js';
import {
  chooseFormat,
  isTextFormat,
  type OutputFormat,
  type TextFormat,
} from '../format/output-format.js';
import { tensorJsonChunks } from '../format/tensor-json.js';
import { type CliIO, writeAll } from '../run/cli-io.js';
import { showOnTerminal } from '../ui/show-tensor.js';
import { refuseDroppingOthers } from './clobber-check.js';
import { type Entry, onlyEntry } from './entry.js';
import { nameEntries } from './entry-names.js';
import type { OutputOptions } from './options.js';

/** Where a result goes: the -o target (the convert OUT), undefined or `-` for standard output. */
export interface Destination {
  readonly output: string | undefined;
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly compress: boolean;
  readonly label: string;
  /** Standard output's format when piped without --format, --json or -o (default: data, .npy). */
  readonly piped?: PipedAs | undefined;
}

/**
 * Picks the format and the sink for tensors: --format, --json or the -o extension choose the
 * format (output-format.ts); a file is written by writeOutputPath (atomic, or in place for
 * devices and FIFOs); standard output gets .npy bytes when piped (tsv where the destination is
 * piped as text) or with `-o -`, and a readable view on a terminal (never binary unless asked for). Every format streams chunk by chunk except
 * the terminal view.
 */
export async function emitEntries(
  entries: readonly Entry[],
  destination: Destination,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  const { output } = destination;
  const ref = output === undefined || isStdio(output) ? undefined : parseOutputRef(output);
  const format = chooseFormat({ format: options.format, json: options.json, path: ref?.path });
  if (format === undefined && output === undefined && io.stdout.isTTY) {
    return showOnTerminal(onlyEntry(entries, 'the terminal view'), destination.label, options, io);
  }
  const piped = output === undefined && destination.piped === 'text' ? 'tsv' : 'npy';
  const chosen = format ?? piped;
  const { chunks, notes } = await encode(entries, chosen, ref, destination, options);
  if (ref === undefined) await writeChunks(io.stdout, chunks);
  else await writeOutputPath(ref.path, chunks);
  for (const n of notes) note(io, options, n, chosen);
}

/** The bytes of `entries` in `format`, named by nameEntries. */
async function encode(
  entries: readonly Entry[],
  format: OutputFormat,
  ref: { readonly path: string; readonly name?: string } | undefined,
  destination: Destination,
  options: OutputOptions,
): Promise<EncodedTensors> {
  const name = ref?.name;
  const where = ref?.path ?? 'standard output';
  if (name !== undefined && (format === 'npy' || isTextFormat(format))) {
    throw usageError(`${where}: a .${format} file holds one unnamed tensor; drop ':${name}'`);
  }
  if (isTextFormat(format)) {
    const stream = asStream(onlyEntry(entries, `.${format}`).data);
    return { chunks: textChunks(stream, format, options.header === true), notes: [] };
  }
  if (ref !== undefined && name !== undefined && options.force !== true) {
    await refuseDroppingOthers(ref.path, name);
  }
  if (name !== undefined && entries.length !== 1) {
    throw usageError(
      `${ref?.path}:${name}: ':${name}' names one tensor, but there are ${entries.length}`,
    );
  }
  return encodeTensors(nameEntries(entries, format, ref), format, ref?.path ?? 'stdout', {
    metadata: destination.metadata,
    compress: destination.compress,
    widen: true,
  });
}

function asStream(data: Tensor | TensorStream): TensorStream {
  return isTensorStream(data) ? data : streamOfTensor(data);
}

function textChunks(
  s: TensorStream,
  format: TextFormat,
  header: boolean,
): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  if (format === 'json') return tensorJsonChunks(s);
  return delimitedChunks(s, { delimiter: format === 'csv' ? ',' : '\t', header });
}

/** Hands chunks to standard output one at a time: memory stays at one chunk. */
async function writeChunks(
  stream: CliIO['stdout'],
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<void> {
  // writeAll resolves once the chunk is handed over, so the producer may refill the same buffer.
  for await (const chunk of chunks) await writeAll(stream, chunk);
}

function note(io: CliIO, options: OutputOptions, n: WriteNote, format: string): void {
  if (options.quiet) return;
  const text =
    n.kind === 'widened'
      ? `${n.name === '' ? 'the result' : `tensor '${n.name}'`} (${n.from}) written as ${n.to}, exactly: .${format} has no ${n.from}`
      : `__metadata__ (${n.keys} key${n.keys === 1 ? '' : 's'}) not written: .${n.format} has no place for it`;
  io.stderr.write(`tensorops: note: ${text}\n`);
}
