import type { Tensor } from '@tensorops/core';
import {
  encodeNpyHeader,
  fileStem,
  formatOfPath,
  isWidenable,
  parseOutputRef,
  widenToFloat32,
} from '@tensorops/io';
import {
  collectStream,
  type NamedTensorData,
  type TensorStream,
  type WriteNote,
  widenStream,
  writeTensorsFile,
} from '@tensorops/io/node';
import { isStdio, usageError } from './args.js';
import { type CliIO, writeAll } from './cli-io.js';
import type { CommandResult } from './commands/command.js';
import { emitInspect } from './output-inspect.js';
import { createProgress } from './ui/progress.js';

export interface OutputOptions {
  /** -o/--output: a path (FILE.npz:NAME / FILE.safetensors:NAME names the tensor), `-` for stdout, or undefined. */
  readonly output?: string | undefined;
  readonly json: boolean;
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
      return emitTensor(result.tensor, result.label, options, io);
    case 'inspect':
      return emitInspect(result.reports, options, io);
    case 'beams': {
      const { emitBeams } = await import('./output-beams.js');
      return emitBeams(result.beams, options, io);
    }
    case 'stream': {
      const progress = startProgress(result.label, result.stream.nbytes, options, io);
      try {
        return await emitStream(tracked(result.stream, progress), result.label, options, io);
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
        return await emitTensors({ ...result, entries }, options, io);
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
    enabled: io.stderr.isTTY === true && !options.quiet,
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

/**
 * Picks the sink for a tensor result: -o file (atomic, format by extension), .npy on stdout when
 * piped or with `-o -`, the --json document, or a readable view on a terminal (never binary on a
 * TTY).
 */
export async function emitTensor(
  t: Tensor,
  label: string,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  if (options.output !== undefined && !isStdio(options.output)) {
    await writeOutputFile(options.output, [{ name: undefined, data: t }], null, options, io);
    return;
  }
  if (options.json) {
    const { tensorJson } = await import('./format/tensor-json.js');
    await writeAll(io.stdout, tensorJson(t));
    return;
  }
  if (options.output !== undefined || !io.stdout.isTTY) {
    const npy = widenForNpy(t, options, io);
    await writeAll(io.stdout, encodeNpyHeader(npy));
    await writeAll(io.stdout, npy.data);
    return;
  }
  const { renderTensorView } = await import('./ui/render.js');
  await renderTensorView(t, label, { stdout: io.stdout, env: io.env, color: options.color });
}

/**
 * A chunked result: written to -o or piped stdout chunk by chunk (memory stays at one chunk);
 * --json and the terminal view need it whole and collect it first.
 */
async function emitStream(
  s: TensorStream,
  label: string,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  if (options.output !== undefined && !isStdio(options.output)) {
    await writeOutputFile(options.output, [{ name: undefined, data: s }], null, options, io);
    return;
  }
  if (!options.json && (options.output !== undefined || !io.stdout.isTTY)) {
    await streamNpy(s, undefined, options, io);
    return;
  }
  await emitTensor(await collectStream(s), label, options, io);
}

async function emitTensors(
  result: Extract<CommandResult, { kind: 'tensors' }>,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  if (isStdio(result.output)) {
    const [only, ...rest] = result.entries;
    if (only === undefined || rest.length > 0) {
      throw usageError(
        'standard output carries one .npy tensor; write a .npz or .safetensors file',
      );
    }
    await streamNpy(only.data, only.name, options, io);
    return;
  }
  await writeOutputFile(
    result.output,
    result.entries,
    result.metadata,
    options,
    io,
    result.compress,
  );
}

/** .npy on stdout, written chunk by chunk; bfloat16 / float8 become float32 (exact, noted). */
async function streamNpy(
  s: TensorStream,
  name: string | undefined,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  let out = s;
  if (isWidenable(s.dtype)) {
    note(io, options, { kind: 'widened', name: name ?? '', from: s.dtype, to: 'float32' }, 'npy');
    out = widenStream(s);
  }
  await writeAll(io.stdout, encodeNpyHeader(out));
  // writeAll resolves once the chunk is handed over, so the producer may refill the same buffer.
  for await (const chunk of out.chunks({ reuse: true })) await writeAll(io.stdout, chunk);
}

function widenForNpy(t: Tensor, options: OutputOptions, io: CliIO): Tensor {
  if (!isWidenable(t.dtype)) return t;
  note(io, options, { kind: 'widened', name: '', from: t.dtype, to: 'float32' }, 'npy');
  return widenToFloat32(t);
}

/**
 * Writes tensors to `target` (`FILE`, or `FILE.npz:NAME` / `FILE.safetensors:NAME`), in the
 * format of its extension (.npy for any other). A single tensor in a container is named, in this
 * order: the :NAME of the target, its own name (from the file it came from), the target's stem.
 */
async function writeOutputFile(
  target: string,
  entries: readonly { readonly name: string | undefined; readonly data: Tensor | TensorStream }[],
  metadata: Readonly<Record<string, string>> | null,
  options: OutputOptions,
  io: CliIO,
  compress = false,
): Promise<void> {
  const { path, name } = parseOutputRef(target);
  const format = formatOfPath(path) ?? 'npy';
  if (name !== undefined && format === 'npy') {
    throw usageError(`${path}: a .npy file holds one unnamed tensor; drop ':${name}'`);
  }
  if (name !== undefined && entries.length !== 1) {
    throw usageError(`${target}: ':${name}' names one tensor, but there are ${entries.length}`);
  }
  const named: NamedTensorData[] = entries.map((e) => ({
    name: entries.length === 1 ? (name ?? e.name ?? fileStem(path)) : (e.name ?? fileStem(path)),
    data: e.data,
  }));
  const notes = await writeTensorsFile(path, named, { format, metadata, compress, widen: true });
  for (const n of notes) note(io, options, n, format);
}

function note(io: CliIO, options: OutputOptions, n: WriteNote, format: string): void {
  if (options.quiet) return;
  const text =
    n.kind === 'widened'
      ? `${n.name === '' ? 'the result' : `tensor '${n.name}'`} (${n.from}) written as ${n.to}, exactly: .${format} has no ${n.from}`
      : `__metadata__ (${n.keys} key${n.keys === 1 ? '' : 's'}) not written: .${n.format} has no place for it`;
  io.stderr.write(`tensorops: note: ${text}\n`);
}
