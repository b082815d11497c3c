// The progress bar is plain text on stderr, not Ink, on purpose:
// - it runs on the pipeline path (`tensorops gather big.npy idx.npy > out.npy` has a terminal on
//   stderr and a pipe on stdout), where loading React and Ink would cost more start-up time than
//   most runs take, and where the e2e test requires that they are not loaded at all;
// - the kernels run synchronously, so Ink's timer-driven renders would never get a turn; drawing
//   from update() itself works while the event loop is blocked;
// - `\r` and spaces are all it needs: no escape sequences, so TERM=dumb and NO_COLOR need nothing.
import { formatBytes } from '../format/bytes.js';
import { resolveColumns } from './layout.js';

export interface ProgressStream {
  write(chunk: string): unknown;
  readonly columns?: number | undefined;
}

export interface ProgressOptions {
  /** stderr. Never stdout: stdout carries data. */
  readonly stream: ProgressStream;
  /**
   * stderr is a TTY and not --quiet; when false the controller does nothing at all. A function is
   * asked once, when the bar would first be drawn: work that ends within `delay` never looks at
   * stderr, whose stream is set up (loading Node's stream classes) when first touched.
   */
  readonly enabled: boolean | (() => boolean);
  readonly label: string;
  /** Units of work in all; 0 or less shows the amount done without a bar. */
  readonly total: number;
  /** `bytes` shows 1.50 MiB/12.0 MiB; `items` (the default) shows 3/12. */
  readonly unit?: 'bytes' | 'items';
  /** TERM=dumb: `#` and `-` instead of block characters. */
  readonly ascii?: boolean;
  /** Milliseconds; injectable for tests. */
  readonly now?: () => number;
  /** Nothing is shown for work that ends sooner than this (ms). */
  readonly delay?: number;
  /** At most one redraw per this many ms. */
  readonly interval?: number;
}

export interface Progress {
  /** Reports `done` units finished so far. Cheap enough to call per element. */
  update(done: number): void;
  /** Clears the bar's line, if one was drawn; later updates are ignored. */
  finish(): void;
}

const DISABLED: Progress = { update() {}, finish() {} };

export function createProgress(options: ProgressOptions): Progress {
  if (options.enabled === false) return DISABLED;
  const now = options.now ?? (() => performance.now());
  const delay = options.delay ?? 300;
  const interval = options.interval ?? 100;
  const start = now();
  const isEnabled = typeof options.enabled === 'function' ? options.enabled : () => true;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let drawn = 0; // width of the text on the line now
  let finished = false;
  // A clock read costs far more than a counter increment. Updates that come faster than one per
  // millisecond (say, per element) read it only every `stride` calls, so the bar costs a counter
  // increment per call.
  let stride = 1;
  let calls = 0;
  let lastRead = start;

  const draw = (text: string): void => {
    // Spaces over the rest of a longer previous line instead of an erase escape.
    options.stream.write(`\r${text.padEnd(drawn)}`);
    drawn = text.length;
  };

  return {
    update(done: number): void {
      if (finished || ++calls < stride) return;
      calls = 0;
      const t = now();
      const gap = t - lastRead;
      lastRead = t;
      if (gap < 1 && stride < 1 << 16) stride *= 2;
      else if (gap > 20) stride = 1;
      if (t - start < delay || t - lastDraw < interval) return;
      if (lastDraw === Number.NEGATIVE_INFINITY && !isEnabled()) {
        finished = true;
        return;
      }
      lastDraw = t;
      draw(progressLine(options, done, resolveColumns(options.stream.columns)));
    },
    finish(): void {
      if (finished) return;
      finished = true;
      if (drawn > 0) options.stream.write(`\r${' '.repeat(drawn)}\r`);
    },
  };
}

/**
 * `label ██████░░░░░░ 45% 12.0 MiB/27.0 MiB`, one column short of the width so the terminal
 * never wraps it; the bar shrinks first, then goes, then the line is cut.
 */
export function progressLine(
  options: Pick<ProgressOptions, 'label' | 'total' | 'unit' | 'ascii'>,
  done: number,
  columns: number,
): string {
  const width = columns - 1;
  const amount = (n: number): string => (options.unit === 'bytes' ? formatBytes(n) : String(n));
  if (options.total <= 0) return fit(`${options.label} ${amount(done)}`, width);
  const fraction = Math.min(1, Math.max(0, done / options.total));
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const suffix = `${percent} ${amount(Math.min(done, options.total))}/${amount(options.total)}`;
  const room = width - options.label.length - suffix.length - 2;
  if (room < 5) return fit(`${options.label} ${suffix}`, width);
  const barWidth = Math.min(30, room);
  const full = Math.floor(fraction * barWidth);
  const [on, off] = options.ascii ? ['#', '-'] : ['█', '░'];
  return `${options.label} ${on.repeat(full)}${off.repeat(barWidth - full)} ${suffix}`;
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, Math.max(0, width));
}
