import { formatShape } from '@tensorops/core';
import { formatBytes } from '../format/bytes.js';
import { packLines, printable, resolveColumns, truncateMiddle } from './layout.js';
import { type Line, type Segment, StyledLines, type Tone } from './styled-lines.js';

/** One tensor of a file, as `inspect` lists it (its InspectTensor rows fit as they are). */
export interface TensorEntry {
  /** null for a tensor without a name (a .npy file): shown as `-`. */
  readonly name: string | null;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly nbytes: number;
  /** Byte offset of the data in the file; null or absent where there is none (shown as `-`). */
  readonly offset?: number | null | undefined;
  /** The shard file of a sharded checkpoint's tensor; null or absent elsewhere. */
  readonly shard?: string | null | undefined;
}

export interface TensorTableProps {
  readonly entries: readonly TensorEntry[];
  /** Shown above the table (e.g. the file name). */
  readonly title?: string | undefined;
  /** Terminal width; 0 or undefined lays out for 80. */
  readonly columns?: number | undefined;
  readonly color: boolean;
}

/** The tensors of a file as an aligned table, with a line of totals. */
export function TensorTable(props: TensorTableProps) {
  const columns = resolveColumns(props.columns);
  return (
    <StyledLines
      lines={tensorTableLines({ ...props, columns })}
      columns={columns}
      color={props.color}
    />
  );
}

interface Column {
  readonly header: string;
  readonly align: 'left' | 'right';
  readonly cells: readonly string[];
  width: number;
}

const GAP = 2;
/** Names are shortened (in the middle) to no less than this before columns are dropped. */
const MIN_NAME = 16;

export function tensorTableLines(props: TensorTableProps): Line[] {
  const { entries } = props;
  const columns = resolveColumns(props.columns);
  const column = (
    header: string,
    align: 'left' | 'right',
    cell: (e: TensorEntry) => string,
  ): Column => {
    const cells = entries.map(cell);
    return {
      header,
      align,
      cells,
      // reduce, not Math.max(...): a file can hold more tensors than a call has arguments.
      width: cells.reduce((w, c) => Math.max(w, [...c].length), header.length),
    };
  };
  const name = column('name', 'left', (e) => (e.name === null ? '-' : printable(e.name)));
  // Right of the name, most important first: on a narrow terminal the last ones go first.
  const rest = [
    column('dtype', 'left', (e) => printable(e.dtype)),
    column('shape', 'left', (e) => formatShape(e.shape)),
    column('size', 'right', (e) => formatBytes(e.nbytes)),
  ];
  if (entries.some((e) => typeof e.offset === 'number')) {
    rest.push(
      column('offset', 'right', (e) => (typeof e.offset === 'number' ? String(e.offset) : '-')),
    );
  }
  if (entries.some((e) => typeof e.shard === 'string')) {
    rest.push(column('shard', 'left', (e) => printable(e.shard ?? '-')));
  }
  const restWidth = (): number => rest.reduce((n, c) => n + GAP + c.width, 0);
  const minName = Math.min(name.width, MIN_NAME);
  while (rest.length > 0 && minName + restWidth() > columns) rest.pop();
  name.width = Math.max(minName, Math.min(name.width, columns - restWidth()));

  const shown = [name, ...rest];
  const row = (cell: (c: Column) => string, tone?: Tone): Line =>
    shown.flatMap((c, i): Segment[] => {
      const text = truncateMiddle(cell(c), c.width);
      const padded = c.align === 'left' ? text.padEnd(c.width) : text.padStart(c.width);
      const segment: Segment = tone ? { text: padded, tone } : { text: padded };
      return i === 0 ? [segment] : [{ text: ' '.repeat(GAP) }, segment];
    });

  const lines: Line[] = [];
  if (props.title !== undefined) lines.push([{ text: printable(props.title), tone: 'title' }]);
  if (entries.length > 0) {
    lines.push(row((c) => c.header, 'label'));
    entries.forEach((_, r) => {
      lines.push(row((c) => c.cells[r] as string));
    });
  }
  const total = entries.reduce((n, e) => n + e.nbytes, 0);
  const totals: Segment[][] = [
    [
      { text: String(entries.length), tone: 'value' },
      { text: entries.length === 1 ? ' tensor' : ' tensors', tone: 'label' },
    ],
    [
      { text: formatBytes(total), tone: 'value' },
      { text: ' total', tone: 'label' },
    ],
  ];
  const width = (f: readonly Segment[]): number => f.reduce((n, seg) => n + seg.text.length, 0);
  for (const line of packLines(totals, width, columns)) {
    lines.push(line.flatMap((f, i) => (i === 0 ? f : [{ text: '  ' }, ...f])));
  }
  return lines;
}
