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
import type { InspectReport } from './commands/inspect.js';
import { emitBeams } from './output-beams.js';

export interface OutputOptions {
  /** -o/--output: a path (FILE.npz:NAME / FILE.safetensors:NAME names the tensor), `-` for stdout, or undefined. */
  readonly output?: string | undefined;
  readonly json: boolean;
  readonly quiet: boolean;
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
      return emitInspect(result.report, options, io);
    case 'beams':
      return emitBeams(result.beams, options, io);
    case 'stream':
      try {
        return await emitStream(result.stream, result.label, options, io);
      } finally {
        await result.dispose();
      }
    case 'tensors':
      try {
        return await emitTensors(result, options, io);
      } finally {
        await result.dispose();
      }
  }
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
  const { tensorSummary } = await import('./format/summary.js');
  await writeAll(io.stdout, tensorSummary(t, label));
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

/**
 * `inspect`: the --json document, or a plain table (on a terminal and in pipes alike: the table
 * is the command's output, not a rendering of binary data).
 */
export async function emitInspect(
  report: InspectReport,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  if (options.json) {
    await writeAll(io.stdout, `${JSON.stringify(report)}\n`);
    return;
  }
  await writeAll(io.stdout, inspectTable(report));
}

/** Control characters in names would break the table's lines: show them escaped. */
function printable(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
  }
  return out;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** The plain-text view of an inspect report. */
export function inspectTable(report: InspectReport): string {
  const count = report.tensors.length;
  const lines = [
    `${printable(report.file)}: ${report.format}, ${count} tensor${count === 1 ? '' : 's'}, ${bytes(report.size)}`,
  ];
  if (count > 0) {
    const rows = report.tensors.map((t) => {
      const notes = [
        t.format_dtype,
        t.fortran_order ? 'fortran order' : '',
        t.byte_order === 'big' ? 'big-endian' : '',
        t.compression === 'deflate' ? `deflate ${t.compressed_nbytes} B` : '',
      ].filter((x) => x !== '');
      return [
        t.name === null ? '-' : printable(t.name),
        t.dtype,
        `[${t.shape.join(', ')}]`,
        String(t.nbytes),
        t.offset === null ? '-' : String(t.offset),
        notes.join(', '),
      ];
    });
    const header = ['name', 'dtype', 'shape', 'bytes', 'offset', 'stored as'];
    const widths = header.map((h, i) =>
      Math.max(h.length, ...rows.map((r) => (r[i] as string).length)),
    );
    const right = new Set([3, 4]);
    for (const row of [header, ...rows]) {
      const cells = row.map((c, i) =>
        right.has(i) ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number),
      );
      lines.push(`  ${cells.join('  ').trimEnd()}`);
    }
  }
  if (report.metadata !== null) {
    lines.push('metadata:');
    for (const [k, v] of Object.entries(report.metadata))
      lines.push(`  ${printable(k)}: ${printable(v)}`);
  }
  return `${lines.join('\n')}\n`;
}
