import type { Tensor } from '@tensorops/core';
import { fileStem, parseOutputRef } from '@tensorops/io';
import {
  collectStream,
  type NamedTensorData,
  openTensorFile,
  resolveOutputTarget,
  streamOfTensor,
  type TensorFile,
  type TensorStream,
  type WriteNote,
  writeOutputPath,
} from '@tensorops/io/node';
import { type EncodedTensors, encodeTensors, isTensorStream } from '@tensorops/io/node/internal';
import { isStdio, usageError } from './args.js';
import { type CliIO, writeAll } from './cli-io.js';
import type { CommandResult } from './commands/command.js';
import { delimitedChunks } from './format/delimited-text.js';
import {
  chooseFormat,
  isTextFormat,
  type OutputFormat,
  type TextFormat,
} from './format/output-format.js';
import { tensorJsonChunks } from './format/tensor-json.js';
import { emitInspect } from './output-inspect.js';
import { createProgress } from './ui/progress.js';

export interface OutputOptions {
  /** -o/--output: a path (FILE.npz:NAME / FILE.safetensors:NAME names the tensor), `-` for stdout, or undefined. */
  readonly output?: string | undefined;
  /** --format: npy, npz, safetensors, json, csv or tsv (checked by chooseFormat). */
  readonly format?: string | undefined;
  readonly json: boolean;
  /** --header: a `#` comment line before CSV / TSV rows. */
  readonly header?: boolean;
  /** --force: `-o FILE.npz:NAME` may replace a file that holds other tensors. */
  readonly force?: boolean;
  readonly quiet: boolean;
  /** The --color flag (false for --no-color); NO_COLOR and TERM=dumb are read from the env too. */
  readonly color: boolean;
}

/** Routes any command result to its sink; releases the result's input files afterwards. */
export async function emitResult(
  result: CommandResult,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  switch (result.kind) {
    case 'tensor':
      return emitEntries(
        [{ name: undefined, data: result.tensor }],
        { output: options.output, metadata: null, compress: false, label: result.label },
        options,
        io,
      );
    case 'inspect':
      return emitInspect(result.reports, options, io);
    case 'beams': {
      const { emitBeams } = await import('./output-beams.js');
      return emitBeams(result.beams, options, io);
    }
    case 'stream': {
      const progress = startProgress(result.label, result.stream.nbytes, options, io);
      try {
        return await emitEntries(
          [{ name: undefined, data: tracked(result.stream, progress) }],
          { output: options.output, metadata: null, compress: false, label: result.label },
          options,
          io,
        );
      } finally {
        progress.finish();
        await result.dispose();
      }
    }
    case 'tensors': {
      const total = result.entries.reduce((n, e) => n + e.data.nbytes, 0);
      const progress = startProgress(result.label, total, options, io);
      const entries = result.entries.map((e) => ({ ...e, data: tracked(e.data, progress) }));
      try {
        return await emitEntries(entries, result, options, io);
      } finally {
        progress.finish();
        await result.dispose();
      }
    }
  }
}

/**
 * The stderr progress bar for streamed work (large file gathers, conversions): only on a
 * terminal, never with --quiet, and it draws nothing for work that ends within ~300 ms.
 */
function startProgress(
  label: string,
  total: number,
  options: OutputOptions,
  io: CliIO,
): ByteProgress {
  const bar = createProgress({
    stream: io.stderr,
    enabled: options.quiet ? false : () => io.stderr.isTTY === true,
    label,
    total,
    unit: 'bytes',
    ascii: io.env.TERM === 'dumb',
    delay: progressDelay(io.env.TENSOROPS_PROGRESS_DELAY),
  });
  let done = 0;
  return {
    advance(bytes) {
      done += bytes;
      bar.update(done);
    },
    finish: () => bar.finish(),
  };
}

/** Milliseconds before the bar appears: 300, or TENSOROPS_PROGRESS_DELAY (as git's GIT_PROGRESS_DELAY). */
function progressDelay(value: string | undefined): number {
  const ms = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(ms) && ms >= 0 ? ms : 300;
}

interface ByteProgress {
  advance(bytes: number): void;
  finish(): void;
}

/** A stream that reports every chunk it hands out to `progress` (a shared total for many streams). */
function tracked(s: TensorStream, progress: ByteProgress): TensorStream {
  return {
    dtype: s.dtype,
    shape: s.shape,
    nbytes: s.nbytes,
    async *chunks(chunkOptions) {
      for await (const chunk of s.chunks(chunkOptions)) {
        yield chunk;
        progress.advance(chunk.byteLength);
      }
    },
  };
}

/** A tensor to write: its name (undefined: the sink picks one) and its data. */
interface Entry {
  readonly name: string | undefined;
  readonly data: Tensor | TensorStream;
}

/** Where a result goes: the -o target (the convert OUT), undefined or `-` for standard output. */
interface Destination {
  readonly output: string | undefined;
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly compress: boolean;
  readonly label: string;
}

/**
 * Picks the format and the sink for tensors: --format, --json or the -o extension choose the
 * format (output-format.ts); a file is written by writeOutputPath (atomic, or in place for
 * devices and FIFOs); standard output gets .npy bytes when piped or with `-o -`, and a readable
 * view on a terminal (never binary unless asked for). Every format streams chunk by chunk except
 * the terminal view.
 */
async function emitEntries(
  entries: readonly Entry[],
  destination: Destination,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  const { output } = destination;
  const ref = output === undefined || isStdio(output) ? undefined : parseOutputRef(output);
  const format = chooseFormat({ format: options.format, json: options.json, path: ref?.path });
  if (format === undefined && output === undefined && io.stdout.isTTY) {
    return renderView(onlyEntry(entries, 'the terminal view'), destination.label, options, io);
  }
  const chosen = format ?? 'npy';
  const { chunks, notes } = await encode(entries, chosen, ref, destination, options);
  if (ref === undefined) await writeChunks(io.stdout, chunks);
  else await writeOutputPath(ref.path, chunks);
  for (const n of notes) note(io, options, n, chosen);
}

function onlyEntry(entries: readonly Entry[], what: string): Entry {
  const [only, ...rest] = entries;
  if (only === undefined || rest.length > 0) {
    throw usageError(
      `${what} holds one tensor and there are ${entries.length}; write a .npz or .safetensors file`,
    );
  }
  return only;
}

/**
 * The bytes of `entries` in `format`. A single tensor in a container is named, in this order:
 * the :NAME of the target, its own name (from the file it came from), the target's stem.
 */
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
  // Unnamed on standard output: numpy's arr_0 in a container; .npy stores no name at all.
  const fallback = ref !== undefined ? fileStem(ref.path) : format === 'npy' ? '' : 'arr_0';
  const named: NamedTensorData[] = entries.map((e) => ({
    name: entries.length === 1 ? (name ?? e.name ?? fallback) : (e.name ?? fallback),
    data: e.data,
  }));
  return encodeTensors(named, format, ref?.path ?? 'stdout', {
    metadata: destination.metadata,
    compress: destination.compress,
    widen: true,
  });
}

/**
 * `-o FILE.npz:NAME` writes a file holding that one tensor. When FILE already holds other tensors
 * they would be lost, so that needs --force (an archive is never edited in place: the whole file
 * is replaced atomically, or not at all).
 */
async function refuseDroppingOthers(path: string, name: string): Promise<void> {
  const target = await resolveOutputTarget(path);
  if (target.kind !== 'atomic' || target.existing === undefined) return;
  let file: TensorFile;
  try {
    file = await openTensorFile(target.path);
  } catch {
    return; // not a tensor file: replaced like any other file
  }
  const others = file.tensors.flatMap((t) => (t.name === name ? [] : [t.name ?? '']));
  await file.close();
  if (others.length === 0) return;
  const shown = others
    .slice(0, 3)
    .map((n) => `'${n}'`)
    .join(', ');
  const more = others.length > 3 ? ` and ${others.length - 3} more` : '';
  throw usageError(
    `${path} holds other tensors (${shown}${more}) and writing ${path}:${name} replaces the whole file; pass --force to replace it, or write to another file`,
  );
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
export async function writeChunks(
  stream: CliIO['stdout'],
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<void> {
  // writeAll resolves once the chunk is handed over, so the producer may refill the same buffer.
  for await (const chunk of chunks) await writeAll(stream, chunk);
}

async function renderView(
  entry: Entry,
  label: string,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  const t = isTensorStream(entry.data) ? await collectStream(entry.data) : entry.data;
  const { renderTensorView } = await import('./ui/render.js');
  await renderTensorView(t, label, { stdout: io.stdout, env: io.env, color: options.color });
}

function note(io: CliIO, options: OutputOptions, n: WriteNote, format: string): void {
  if (options.quiet) return;
  const text =
    n.kind === 'widened'
      ? `${n.name === '' ? 'the result' : `tensor '${n.name}'`} (${n.from}) written as ${n.to}, exactly: .${format} has no ${n.from}`
      : `__metadata__ (${n.keys} key${n.keys === 1 ? '' : 's'}) not written: .${n.format} has no place for it`;
  io.stderr.write(`tensorops: note: ${text}\n`);
}
