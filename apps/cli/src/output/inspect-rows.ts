import { printable } from '../ui/layout.js';
import { describeTensor, type InspectReport } from './inspect-report.js';

// inspect --format csv|tsv: one row per tensor (per group with --summary), a file column first so
// that several files make one table, the columns named as the --json keys. Every name goes
// through printable (controls as \xNN), so a row is one line; csv quotes a cell holding , or ".

export type RowFormat = 'csv' | 'tsv';

type Cell = string | number | boolean | null;

const TENSOR_COLUMNS = [
  'file',
  'name',
  'dtype',
  'shape',
  'nbytes',
  'offset',
  'shard',
  'format_dtype',
  'fortran_order',
  'byte_order',
  'compression',
  'compressed_nbytes',
] as const;

const GROUP_COLUMNS = ['file', 'name', 'count', 'dtype', 'shape', 'nbytes'] as const;

function cellText(cell: Cell, format: RowFormat): string {
  if (cell === null) return '';
  const text = printable(String(cell));
  if (format === 'csv' && /[",]/.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/** The rows of `reports` (their groups, when summarized) as csv or tsv, a header line first. */
export function inspectRows(reports: readonly InspectReport[], format: RowFormat): string {
  const summarized = reports.some((r) => r.summary !== undefined);
  const rows: Cell[][] = [];
  for (const r of reports) {
    if (summarized) {
      for (const g of r.summary?.groups ?? []) {
        rows.push([r.file, g.name, g.count, g.dtype, shapeText(g.shape), g.nbytes]);
      }
      continue;
    }
    for (const stored of r.tensors) {
      const t = describeTensor(stored);
      rows.push([
        r.file,
        t.name,
        t.dtype,
        shapeText(t.shape),
        t.nbytes,
        t.offset,
        t.shard,
        t.format_dtype,
        t.fortran_order,
        t.byte_order,
        t.compression,
        t.compressed_nbytes,
      ]);
    }
  }
  const separator = format === 'csv' ? ',' : '\t';
  const header = summarized ? GROUP_COLUMNS : TENSOR_COLUMNS;
  return [header as readonly Cell[], ...rows]
    .map((row) => `${row.map((c) => cellText(c, format)).join(separator)}\n`)
    .join('');
}
