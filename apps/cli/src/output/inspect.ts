import type { StoredTensor } from '@tensorops/io/node';
import { formatBytes } from '../format/bytes.js';
import { type CliIO, writeAll } from '../run/cli-io.js';
import { printable } from '../ui/layout.js';
import { ggufLines } from './inspect-gguf.js';
import {
  describeTensor,
  type InspectReport,
  type InspectTensor,
  inspectDocument,
} from './inspect-report.js';
import { inspectRows } from './inspect-rows.js';
import type { InspectSummary } from './inspect-summary.js';
import type { OutputOptions } from './options.js';

/**
 * `inspect`: the --json document (one report; an array of them for several files), or a plain
 * table per file (on a terminal and in pipes alike: the table is the command's output, not a
 * rendering of binary data).
 */
export async function emitInspect(
  reports: readonly InspectReport[],
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  const format = options.json ? 'json' : options.format;
  if (format === 'json') {
    const doc =
      reports.length === 1
        ? inspectDocument(reports[0] as InspectReport)
        : reports.map(inspectDocument);
    await writeAll(io.stdout, `${JSON.stringify(doc)}\n`);
    return;
  }
  if (format === 'csv' || format === 'tsv') {
    await writeAll(io.stdout, inspectRows(reports, format));
    return;
  }
  const summaries = reports.some((r) => r.summary !== undefined);
  if (summaries || !io.stdout.isTTY) {
    for (const [i, report] of reports.entries()) {
      if (i > 0) await writeAll(io.stdout, '\n');
      if (report.summary === undefined) await writeInspectTable(report, io);
      else await writeAll(io.stdout, summaryTable(report, report.summary));
    }
    return;
  }
  const { renderTensorTable } = await import('../ui/render.js');
  for (const [i, report] of reports.entries()) {
    if (i > 0) await writeAll(io.stdout, '\n');
    const title = `${report.file}: ${report.format}, ${shardCount(report)}${formatBytes(report.size)}`;
    await renderTensorTable(report.tensors.map(describeTensor), {
      stdout: io.stdout,
      env: io.env,
      color: options.color,
      title,
    });
    await writeAll(
      io.stdout,
      sharedStorageLines(report) + notTensorLines(report) + metadataLines(report),
    );
  }
}

function notTensorLines(report: InspectReport): string {
  const others = report.other_entries;
  return report.not_tensors
    .map((o) => `  ${printable(o.name)}  not a tensor: ${printable(o.reason)}\n`)
    .concat(others > 0 ? [`  and ${otherEntries(others)}\n`] : [])
    .join('');
}

/**
 * The terminal table has no `stored as` column: torch tensors that share a storage (tied
 * weights) are named under it instead, one line per storage.
 */
function sharedStorageLines(report: InspectReport): string {
  const byKey = new Map<string, string[]>();
  for (const t of report.tensors) {
    if (t.storage === undefined || t.storage.shared === 0) continue;
    const names = byKey.get(t.storage.key) ?? [];
    names.push(printable(t.name ?? ''));
    byKey.set(t.storage.key, names);
  }
  return [...byKey]
    .map(([key, names]) => `  storage ${printable(key)} is shared by ${names.join(', ')}\n`)
    .join('');
}

function otherEntries(n: number): string {
  return n === 1 ? '1 entry that is not a tensor' : `${n} entries that are not tensors`;
}

/** A torch tensor's storage: `storage 0 (shared with 1 more)`, and a strided view's strides. */
function storageNote(t: InspectTensor): string {
  if (t.storage === null) return '';
  const { key, shared_with, strides } = t.storage;
  const shared = shared_with > 0 ? ` (shared with ${shared_with} more)` : '';
  return `storage ${printable(key)}${shared}${strides === null ? '' : `, strides [${strides.join(', ')}]`}`;
}

function metadataLines({ metadata, gguf }: InspectReport): string {
  if (gguf !== undefined) return ggufLines(gguf);
  if (metadata === null) return '';
  const lines = Object.entries(metadata).map(([k, v]) => `  ${printable(k)}: ${printable(v)}\n`);
  return `metadata:\n${lines.join('')}`;
}

function shardCount(report: InspectReport): string {
  return report.shards === null ? '' : `${report.shards} shard${report.shards === 1 ? '' : 's'}, `;
}

/** The plain-text view of inspect --summary: a row per group, then the totals. */
function summaryTable(report: InspectReport, summary: InspectSummary): string {
  const rows = summary.groups.map((g) => [
    printable(g.name),
    `×${g.count}`,
    g.dtype,
    `[${g.shape.join(', ')}]`,
    formatBytes(g.nbytes),
  ]);
  const byDtype = Object.entries(summary.bytes_by_dtype)
    .map(([dtype, n]) => `${dtype} ${formatBytes(n)}`)
    .join(', ');
  const total = report.tensors.reduce((n, t) => n + t.nbytes, 0);
  return [
    title(report),
    ...columns(['group', 'count', 'dtype', 'shape', 'bytes'], rows, new Set([1, 4])),
    `  total: ${summary.parameters.toLocaleString('en-US')} parameters, ${formatBytes(total)}${byDtype === '' ? '' : ` (${byDtype})`}`,
    '',
  ].join('\n');
}

function title(report: InspectReport): string {
  const count = report.tensors.length;
  return `${printable(report.file)}: ${report.format}, ${shardCount(report)}${count} tensor${count === 1 ? '' : 's'}, ${formatBytes(report.size)}`;
}

/** Each column as wide as its widest cell, the header's included. */
function columnWidths(header: readonly string[], rows: Iterable<readonly string[]>): number[] {
  const widths = header.map((h) => h.length);
  for (const row of rows) {
    for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] as number, c.length);
  }
  return widths;
}

/** One row padded to `widths`, two spaces before each cell; `right` columns pad on the left. */
function alignRow(row: readonly string[], widths: readonly number[], right: ReadonlySet<number>) {
  let line = '';
  for (let i = 0; i < row.length; i++) {
    const cell = row[i] as string;
    // A left-aligned last cell is not padded: its padding would be trimmed off again.
    const last = i === row.length - 1 && !right.has(i);
    const pad = last ? '' : ' '.repeat(Math.max(0, (widths[i] ?? 0) - cell.length));
    line += right.has(i) ? `  ${pad}${cell}` : `  ${cell}${pad}`;
  }
  // Empty cells at the end leave white space that a trimmed line does not have.
  return TRAILING_SPACE.test(line) ? `  ${line.slice(2).trimEnd()}` : line;
}

const TRAILING_SPACE = /\s$/;

/** `rows` under `header`, each column as wide as its widest cell; `right` columns pad on the left. */
function columns(header: string[], rows: string[][], right: ReadonlySet<number>): string[] {
  if (rows.length === 0) return [];
  const widths = columnWidths(header, rows);
  return [header, ...rows].map((row) => alignRow(row, widths, right));
}

/**
 * The cells of one tensor's row in the plain table that are padded to their column's width: all
 * but the last, 'stored as' (see storedAs).
 */
function paddedCells(t: InspectTensor, sharded: boolean): string[] {
  const row = [nameCell(t), t.dtype, shapeCell(t.shape), String(t.nbytes), offsetCell(t)];
  if (sharded) row.push(printable(t.shard ?? '-'));
  return row;
}

const nameCell = (t: InspectTensor): string => (t.name === null ? '-' : printable(t.name));
const offsetCell = (t: InspectTensor): string => (t.offset === null ? '-' : String(t.offset));
const shapeCell = (shape: readonly number[]): string => `[${shape.join(', ')}]`;

/** The length of shapeCell(shape), without making it. */
function shapeCellLength(shape: readonly number[]): number {
  let n = shape.length === 0 ? 2 : shape.length * 2;
  for (const d of shape) n += String(d).length;
  return n;
}

/**
 * The widths of the padded columns (see paddedCells) over `tensors`, the header's included,
 * measured without making each row's cells.
 */
function tensorColumnWidths(
  header: readonly string[],
  tensors: readonly StoredTensor[],
  sharded: boolean,
): number[] {
  const w = header.map((h) => h.length);
  for (const stored of tensors) {
    const t = describeTensor(stored);
    w[0] = Math.max(w[0] as number, nameCell(t).length);
    w[1] = Math.max(w[1] as number, t.dtype.length);
    w[2] = Math.max(w[2] as number, shapeCellLength(t.shape));
    w[3] = Math.max(w[3] as number, String(t.nbytes).length);
    w[4] = Math.max(w[4] as number, offsetCell(t).length);
    if (sharded) w[5] = Math.max(w[5] as number, printable(t.shard ?? '-').length);
  }
  return w;
}

/** The last cell of a tensor's row: how it is stored. Its width is never needed (lines end trimmed). */
function storedAs(t: InspectTensor): string {
  let text = t.format_dtype;
  const add = (part: string): void => {
    if (part !== '') text = text === '' ? part : `${text}, ${part}`;
  };
  if (t.fortran_order) add('fortran order');
  if (t.byte_order === 'big') add('big-endian');
  if (t.compression === 'deflate') add(`deflate ${t.compressed_nbytes} B`);
  add(storageNote(t));
  return text;
}

/** Characters of the plain table written at a time: the text of 10^5 rows is never held whole. */
const CHUNK_CHARS = 1 << 16;

/**
 * The plain-text view of an inspect report, written in chunks. The widths are measured first
 * without making the cells, then each row's cells are made once and dropped: 10^5 rows of kept
 * cells were most of the run's memory, and every string made per row is collection work.
 */
async function writeInspectTable(report: InspectReport, io: CliIO): Promise<void> {
  const sharded = report.tensors.some((t) => t.shard !== undefined);
  const header = ['name', 'dtype', 'shape', 'bytes', 'offset', 'stored as'];
  if (sharded) header.splice(5, 0, 'shard');
  const right = new Set([3, 4]);
  const widths = tensorColumnWidths(header, report.tensors, sharded);
  let text = `${title(report)}\n`;
  if (report.tensors.length > 0) text += `${alignRow(header, widths, right)}\n`;
  for (const stored of report.tensors) {
    const t = describeTensor(stored);
    const row = paddedCells(t, sharded);
    row.push(storedAs(t));
    text += `${alignRow(row, widths, right)}\n`;
    if (text.length >= CHUNK_CHARS) {
      await writeAll(io.stdout, text);
      text = '';
    }
  }
  await writeAll(io.stdout, `${text}${notTensorLines(report)}${metadataLines(report)}`);
}
