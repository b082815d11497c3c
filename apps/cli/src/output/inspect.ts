import { formatBytes } from '../format/bytes.js';
import { type CliIO, writeAll } from '../run/cli-io.js';
import { printable } from '../ui/layout.js';
import { ggufLines } from './inspect-gguf.js';
import type { InspectReport } from './inspect-report.js';
import { inspectRows } from './inspect-rows.js';
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
    const doc = reports.length === 1 ? reports[0] : reports;
    await writeAll(io.stdout, `${JSON.stringify(doc)}\n`);
    return;
  }
  if (format === 'csv' || format === 'tsv') {
    await writeAll(io.stdout, inspectRows(reports, format));
    return;
  }
  if (reports.some((r) => r.summary !== undefined)) {
    await writeAll(io.stdout, reports.map(summaryTable).join('\n'));
    return;
  }
  if (!io.stdout.isTTY) {
    await writeAll(io.stdout, reports.map(inspectTable).join('\n'));
    return;
  }
  const { renderTensorTable } = await import('../ui/render.js');
  for (const [i, report] of reports.entries()) {
    if (i > 0) await writeAll(io.stdout, '\n');
    const title = `${report.file}: ${report.format}, ${shardCount(report)}${formatBytes(report.size)}`;
    await renderTensorTable(report.tensors, {
      stdout: io.stdout,
      env: io.env,
      color: options.color,
      title,
    });
    await writeAll(io.stdout, notTensorLines(report) + metadataLines(report));
  }
}

function notTensorLines(report: InspectReport): string {
  return report.not_tensors
    .map((o) => `  ${printable(o.name)}  not a tensor: ${printable(o.reason)}\n`)
    .join('');
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
function summaryTable(report: InspectReport): string {
  const summary = report.summary;
  if (summary === undefined) return inspectTable(report);
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

/** `rows` under `header`, each column as wide as its widest cell; `right` columns pad on the left. */
function columns(header: string[], rows: string[][], right: ReadonlySet<number>): string[] {
  if (rows.length === 0) return [];
  const widths = header.map((h, i) =>
    // A loop, not Math.max(...rows): spreading 200k rows as arguments overflows the stack.
    rows.reduce((w, r) => Math.max(w, (r[i] as string).length), h.length),
  );
  return [header, ...rows].map((row) => {
    const cells = row.map((c, i) =>
      right.has(i) ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number),
    );
    return `  ${cells.join('  ').trimEnd()}`;
  });
}

/** The plain-text view of an inspect report. */
export function inspectTable(report: InspectReport): string {
  const lines = [title(report)];
  const sharded = report.tensors.some((t) => t.shard !== null);
  const rows = report.tensors.map((t) => {
    const notes = [
      t.format_dtype,
      t.fortran_order ? 'fortran order' : '',
      t.byte_order === 'big' ? 'big-endian' : '',
      t.compression === 'deflate' ? `deflate ${t.compressed_nbytes} B` : '',
    ].filter((x) => x !== '');
    const row = [
      t.name === null ? '-' : printable(t.name),
      t.dtype,
      `[${t.shape.join(', ')}]`,
      String(t.nbytes),
      t.offset === null ? '-' : String(t.offset),
      notes.join(', '),
    ];
    return sharded ? [...row.slice(0, 5), printable(t.shard ?? '-'), ...row.slice(5)] : row;
  });
  const header = ['name', 'dtype', 'shape', 'bytes', 'offset', 'stored as'];
  if (sharded) header.splice(5, 0, 'shard');
  // Concatenated, not spread into push(): a file of 10^5 tensors would overflow the call stack.
  const table = lines.concat(columns(header, rows, new Set([3, 4])));
  return `${table.join('\n')}\n${notTensorLines(report)}${metadataLines(report)}`;
}
