import { formatShape, shapeSize, type Tensor, tensorBytes } from '@tensorops/core';
import { formatBytes } from '../format/bytes.js';
import { formatG, isFloatDtype, reprFloat } from '../format/float-text.js';
import { previewLines } from '../format/preview.js';
import { sparkline, type TensorStats, tensorStats } from '../format/stats.js';
import { packLines, printable, resolveColumns } from './layout.js';
import { type Line, type Segment, StyledLines } from './styled-lines.js';

export interface TensorViewProps {
  readonly tensor: Tensor;
  readonly label: string;
  /** Terminal width; 0 or undefined lays out for 80. */
  readonly columns?: number | undefined;
  readonly color: boolean;
  /** TERM=dumb: ASCII histogram bars. */
  readonly ascii?: boolean;
  /** Most preview lines shown (a rank-3 tensor summarised by numpy's rules needs 55). */
  readonly maxPreviewLines?: number;
}

export const DEFAULT_PREVIEW_LINES = 60;

/** What a person sees for a result: header, numpy-style values, statistics and a histogram. */
export function TensorView(props: TensorViewProps) {
  const columns = resolveColumns(props.columns);
  return (
    <StyledLines
      lines={tensorViewLines({ ...props, columns })}
      columns={columns}
      color={props.color}
    />
  );
}

/** The view's lines, before styling: header, preview, stats, histogram. */
export function tensorViewLines(props: TensorViewProps): Line[] {
  const { tensor: t } = props;
  const columns = resolveColumns(props.columns);
  const maxLines = props.maxPreviewLines ?? DEFAULT_PREVIEW_LINES;
  const lines: Line[] = [];

  const dtypeNote = t.dtype.startsWith('float8') ? ' (raw bits)' : '';
  const header: Segment[][] = [
    [{ text: printable(props.label), tone: 'title' }],
    [{ text: t.dtype + dtypeNote, tone: 'dtype' }],
    [{ text: formatShape(t.shape) }],
    [{ text: formatBytes(tensorBytes(t)) }],
  ];
  lines.push(...joinFields(header, columns));

  const preview = previewLines(t, { maxLines });
  for (const text of preview.lines) lines.push([{ text }]);
  if (preview.truncated) lines.push([{ text: `… (first ${maxLines} lines)`, tone: 'note' }]);

  // One element needs no summary: the preview already shows it.
  const stats = tensorStats(t, histogramBins(columns, shapeSize(t.shape)));
  if (stats === undefined || stats.count <= 1) return lines;
  lines.push(...joinFields(statFields(stats, t), columns));
  if (stats.finite > 0) {
    lines.push([
      { text: 'hist', tone: 'label' },
      { text: ' ' },
      { text: sparkline(stats.histogram, props.ascii), tone: 'bars' },
    ]);
  }
  return lines;
}

/**
 * numpy's 'sqrt' rule (a handful of values makes a few bars, not a comb of gaps), at most 32 and
 * no more than fit after `hist `.
 */
export function histogramBins(columns: number, count: number): number {
  return Math.max(1, Math.min(32, columns - 5, Math.ceil(Math.sqrt(count))));
}

function statFields(s: TensorStats, t: Tensor): Segment[][] {
  const fields: Segment[][] = [];
  const field = (label: string, value: string, tone: 'value' | 'alert' = 'value'): void => {
    fields.push([{ text: label, tone: 'label' }, { text: ' ' }, { text: value, tone }]);
  };
  const extreme = (v: number | bigint): string =>
    typeof v === 'number' && isFloatDtype(t.dtype) ? reprFloat(v, t.dtype) : String(v);
  if (s.min !== undefined && s.max !== undefined && s.mean !== undefined) {
    field('min', extreme(s.min));
    field('max', extreme(s.max));
    field('mean', formatG(s.mean));
  }
  if (isFloatDtype(t.dtype)) {
    field('nan', String(s.nan), s.nan > 0 ? 'alert' : 'value');
    field('+inf', String(s.posInf), s.posInf > 0 ? 'alert' : 'value');
    field('-inf', String(s.negInf), s.negInf > 0 ? 'alert' : 'value');
  }
  return fields;
}

/** Fields two spaces apart, wrapped between fields (never inside one) to fit the width. */
function joinFields(fields: readonly Segment[][], columns: number): Line[] {
  const width = (f: readonly Segment[]): number => f.reduce((n, s) => n + [...s.text].length, 0);
  return packLines(fields, width, columns).map((line) =>
    line.flatMap((f, i) => (i === 0 ? f : [{ text: '  ' }, ...f])),
  );
}
