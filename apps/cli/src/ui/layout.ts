// Pure text layout shared by the terminal views. No Ink here: progress.ts uses it on the
// pipeline path, where Ink must not load.

/** The width to lay out for: a 0-column pty (or no width at all) gets 80. */
export function resolveColumns(columns: number | undefined): number {
  return columns !== undefined && Number.isFinite(columns) && columns >= 1
    ? Math.floor(columns)
    : 80;
}

/**
 * Control characters (a newline or an escape sequence in a tensor name) would break the layout or
 * drive the terminal: shown escaped instead.
 */
export function printable(text: string): string {
  // Most text has none: a test is cheaper than a replace with a callback (100,000 names).
  if (!HAS_CONTROL.test(text)) return text;
  // One native pass, not a character-by-character concatenation: a 99 MB metadata value built
  // that way took gigabytes of string ropes.
  return text.replace(CONTROL, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

// C0 controls, DEL and the C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// The same class, not global: a test of it keeps no lastIndex between calls.
const HAS_CONTROL = new RegExp(CONTROL.source);

/** Shortens to `width` characters keeping both ends: `model.la…q_proj.weight`. */
export function truncateMiddle(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const head = Math.ceil((width - 1) / 2);
  const tail = width - 1 - head;
  return `${chars.slice(0, head).join('')}…${tail > 0 ? chars.slice(-tail).join('') : ''}`;
}

/**
 * Greedy packing of items into lines no wider than `columns`, `gap` apart, in order. An item wider
 * than a line gets a line of its own (the renderer truncates it). Items are measured by `width`.
 */
export function packLines<T>(
  items: readonly T[],
  width: (item: T) => number,
  columns: number,
  gap = 2,
): T[][] {
  const lines: T[][] = [];
  let line: T[] = [];
  let used = 0;
  for (const item of items) {
    const w = width(item);
    if (line.length > 0 && used + gap + w > columns) {
      lines.push(line);
      line = [];
      used = 0;
    }
    used += (line.length > 0 ? gap : 0) + w;
    line.push(item);
  }
  if (line.length > 0) lines.push(line);
  return lines;
}
