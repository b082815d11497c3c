// numpy's basic slicing as text: `1000:1010, ::2`, `-1`, `..., 0`, `()`. Pure, one pass over the
// text. What it accepts is what Python accepts inside `x[...]` for basic indexing: integers
// (an index drops its axis), slices start:stop:step (each part optional, negative counts from the
// end), at most one `...`, commas between items and one trailing comma, spaces anywhere between
// tokens. `()` and empty text are the empty index. A text that is not such a slice, a second `...`
// and a step of 0 are E_USAGE errors naming the column; whether the slice fits a tensor is
// fitSlice's question (fit.ts).

import { TensorOpsError } from '@tensorops/core';

/**
 * Numbers are kept within ±2^53: tensor dimensions are far smaller, so a bound clamped there clips
 * as the exact one would, and an index clamped there is out of bounds as the exact one is.
 */
const CLAMP = Number.MAX_SAFE_INTEGER;

/** The characters of an index quoted back in a message (an absurd one is cut). */
const QUOTED_DIGITS = 24;

export type SliceItem =
  | {
      readonly kind: 'index';
      readonly index: number;
      /** The index as typed (cut to a readable length), for messages. */
      readonly text: string;
    }
  | {
      readonly kind: 'range';
      readonly start: number | undefined;
      readonly stop: number | undefined;
      readonly step: number;
    }
  | { readonly kind: 'ellipsis' };

export interface Slice {
  readonly items: readonly SliceItem[];
}

function malformed(column: number, what: string): TensorOpsError {
  return new TensorOpsError('E_USAGE', `slice: ${what} at column ${column}`);
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isSpace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * Parses the text between the brackets of `x[...]` (the brackets themselves may be included).
 * Columns in messages count from 1 at the first character of `text`.
 */
export function parseSlice(text: string): Slice {
  let at = 0;
  const skipSpaces = () => {
    while (isSpace(text[at])) at++;
  };
  skipSpaces();
  let end = text.length;
  while (end > at && isSpace(text[end - 1])) end--;
  const bracketed = text[at] === '[';
  if (bracketed) {
    if (text[end - 1] !== ']') throw malformed(end + 1, "expected ']' to close the slice");
    at++;
    end--;
  }
  const peek = () => (at < end ? text[at] : undefined);
  const column = () => at + 1;

  /** An optional integer; undefined when the next token is not one. */
  const integer = (): { value: number; text: string } | undefined => {
    skipSpaces();
    const from = at;
    if (peek() === '-' || peek() === '+') at++;
    if (!isDigit(peek())) {
      if (at !== from) throw malformed(column(), 'expected digits after the sign');
      return undefined;
    }
    while (isDigit(peek())) at++;
    const typed = text.slice(from, at);
    const value = Math.max(-CLAMP, Math.min(CLAMP, Number(typed)));
    const shown = typed.length > QUOTED_DIGITS ? `${typed.slice(0, QUOTED_DIGITS)}…` : typed;
    skipSpaces();
    return { value: Object.is(value, -0) ? 0 : value, text: shown };
  };

  skipSpaces();
  // `()`: Python's empty tuple, the empty index.
  if (peek() === '(') {
    at++;
    skipSpaces();
    if (peek() !== ')') throw malformed(column(), "expected ')' (only the empty tuple () is read)");
    at++;
    skipSpaces();
    if (at < end) throw malformed(column(), 'unexpected text after ()');
    return { items: [] };
  }

  const items: SliceItem[] = [];
  let ellipsis = false;
  while (true) {
    skipSpaces();
    // Empty text, or the end after a trailing comma (`1,` is the tuple (1,)).
    if (at >= end) break;
    const itemColumn = column();
    if (text.startsWith('...', at) && at + 3 <= end) {
      if (ellipsis) throw malformed(itemColumn, "a second '...' (a slice holds at most one)");
      ellipsis = true;
      at += 3;
      items.push({ kind: 'ellipsis' });
    } else {
      const start = integer();
      if (peek() !== ':') {
        if (start === undefined) throw unexpected(text, at, end);
        items.push({ kind: 'index', index: start.value, text: start.text });
      } else {
        at++;
        const stop = integer();
        let step: number | undefined;
        if (peek() === ':') {
          at++;
          const stepColumn = column();
          const s = integer();
          if (s !== undefined && s.value === 0) {
            throw malformed(stepColumn, 'the step is 0 (it must not be)');
          }
          step = s?.value;
        }
        items.push({ kind: 'range', start: start?.value, stop: stop?.value, step: step ?? 1 });
      }
    }
    skipSpaces();
    if (at >= end) break;
    if (peek() !== ',') throw unexpected(text, at, end, "',' or the end");
    at++;
    skipSpaces();
    if (peek() === ',') throw malformed(column(), 'two commas with no item between them');
  }
  return { items };
}

function unexpected(text: string, at: number, end: number, expected?: string): TensorOpsError {
  const c = text[at] as string;
  const what = expected ?? "an integer, ':' or '...'";
  if (c === '[' || c === ']') {
    return malformed(at + 1, 'brackets inside a slice (a slice has no nesting)');
  }
  const shown = /^[\x21-\x7e]$/.test(c)
    ? `'${c}'`
    : `character U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`;
  return malformed(at + 1, at >= end ? `expected ${what}` : `expected ${what}, got ${shown}`);
}
