import { createTensor, type Tensor, TensorOpsError } from '@tensorops/core';
import { quote } from './text.js';

// Index tensors written as text, for shells: `seq 0 9`, `3,1,4`, a CSV of pairs, or a JSON array.
//
// Grammar (the input is UTF-8 bytes; only ASCII is meaningful):
// - A JSON array, when the first non-blank byte is `[`: nested and rectangular, integers only.
//   `[]` is an empty 1-D tensor; `[[1, 2], [3, 4]]` has shape [2, 2].
// - Otherwise rows of integers, one row per line, separated by commas and/or blanks (space, tab).
//   One value per line gives a 1-D tensor of the lines; k values per line give [lines, k].
//   Blank lines at the end are ignored; a blank line before more data is an error.
// - An integer is an optional sign and decimal digits, parsed exactly as int64 (no rounding
//   through float64 for 9007199254740993); anything else (1.5, 1e3, 0x10, a word) is an error.
// The result is always int64. Every error names the line and column (both 1-based) it found.

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
/** Up to 15 digits a float64 accumulator is exact; longer numbers go through BigInt. */
const EXACT_DIGITS = 15;
const TWO_32 = 4294967296;

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN = 0x5b;
const CLOSE = 0x5d;

const isDigit = (b: number) => b >= ZERO && b <= NINE;
const isBlank = (b: number) => b === SPACE || b === TAB || b === CR;

/**
 * Parses index text (see the grammar above) into an int64 tensor. `label` names the input in
 * errors (`ids.txt`, `stdin`, `--indices`).
 */
export function parseIndexText(input: Uint8Array | string, label: string): Tensor {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  const values = new Int64Builder();
  const parser = new Cursor(bytes, label);
  parser.skipBom();
  const first = parser.skipWhitespace();
  if (first === OPEN) {
    const shape = parseJsonArray(parser, values);
    return values.tensor(shape);
  }
  return values.tensor(parseRows(parser, values));
}

/** Rows of integers, one per line. Returns the shape. */
function parseRows(p: Cursor, values: Int64Builder): number[] {
  let rows = 0;
  let width = -1;
  let blankLine = -1;
  while (p.pos < p.bytes.length) {
    const lineStart = p.pos;
    p.skipBlanks();
    if (p.atLineEnd()) {
      if (blankLine === -1) blankLine = lineStart;
      p.nextLine();
      continue;
    }
    if (blankLine !== -1) p.fail(blankLine, 'blank line before more values');
    let count = 0;
    for (;;) {
      p.readInteger(values);
      count++;
      p.skipBlanks();
      if (p.atLineEnd()) break;
      if (p.peek() === COMMA) {
        p.pos++;
        p.skipBlanks();
        if (p.atLineEnd() || p.peek() === COMMA) p.fail(p.pos, 'expected a value after the comma');
      }
    }
    if (width === -1) width = count;
    else if (count !== width) {
      p.fail(lineStart, `this line has ${count} values, the first line ${width}`);
    }
    rows++;
    p.nextLine();
  }
  if (rows === 0) p.fail(p.bytes.length, 'no indices: the input is empty');
  return width === 1 ? [rows] : [rows, width];
}

/**
 * A JSON array of integers, checked rectangular as it is read: every array at the same depth
 * has the same length (`dims`), and integers sit only at the deepest level.
 */
function parseJsonArray(p: Cursor, values: Int64Builder): number[] {
  const dims: number[] = [];
  const counts: number[] = [];
  let leafDepth = -1;
  let maxDepth = 0;
  let expectValue = true;
  for (;;) {
    const b = p.skipWhitespace();
    const depth = counts.length;
    if (b === -1) p.fail(p.pos, "expected ']'");
    if (b === CLOSE) {
      if (depth === 0) p.fail(p.pos, "unexpected ']'");
      const count = counts[depth - 1] as number;
      if (expectValue && count > 0) p.fail(p.pos, "expected a value before ']'");
      const known = dims[depth - 1];
      if (known === undefined) dims[depth - 1] = count;
      else if (known !== count) {
        p.fail(p.pos, `ragged array: ${count} items here, ${known} in an earlier one`);
      }
      counts.pop();
      p.pos++;
      if (counts.length > 0) counts[counts.length - 1] = (counts.at(-1) as number) + 1;
      else {
        if (p.skipWhitespace() !== -1) p.fail(p.pos, 'unexpected text after the JSON array');
        return dims.slice(0, maxDepth);
      }
      expectValue = false;
      continue;
    }
    if (!expectValue) {
      if (b !== COMMA) p.fail(p.pos, "expected ',' or ']'");
      p.pos++;
      expectValue = true;
      if (p.skipWhitespace() === CLOSE) p.fail(p.pos, "expected a value after ','");
      continue;
    }
    if (b === OPEN) {
      if (leafDepth !== -1 && depth >= leafDepth)
        p.fail(p.pos, 'expected an integer, not an array');
      counts.push(0);
      maxDepth = Math.max(maxDepth, counts.length);
      p.pos++;
      continue;
    }
    if (leafDepth === -1) {
      if (depth < maxDepth) p.fail(p.pos, 'expected an array, not an integer');
      leafDepth = depth;
    } else if (depth !== leafDepth) p.fail(p.pos, 'expected an array, not an integer');
    p.readInteger(values, true);
    counts[depth - 1] = (counts[depth - 1] as number) + 1;
    expectValue = false;
  }
}

/** A read position over the bytes, with the error wording (line and column) in one place. */
class Cursor {
  pos = 0;

  constructor(
    readonly bytes: Uint8Array,
    readonly label: string,
  ) {}

  skipBom(): void {
    const b = this.bytes;
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.pos = 3;
  }

  peek(): number {
    return this.pos < this.bytes.length ? (this.bytes[this.pos] as number) : -1;
  }

  /** Skips blanks and line ends; returns the next byte, or -1 at the end. */
  skipWhitespace(): number {
    const b = this.bytes;
    while (this.pos < b.length) {
      const c = b[this.pos] as number;
      if (c !== SPACE && c !== TAB && c !== CR && c !== LF) return c;
      this.pos++;
    }
    return -1;
  }

  /** Skips blanks within a line. */
  skipBlanks(): void {
    const b = this.bytes;
    while (this.pos < b.length && isBlank(b[this.pos] as number)) this.pos++;
  }

  atLineEnd(): boolean {
    return this.pos >= this.bytes.length || this.bytes[this.pos] === LF;
  }

  nextLine(): void {
    if (this.pos < this.bytes.length) this.pos++;
  }

  /** One integer at the cursor into `values`; it must end at a separator. */
  readInteger(values: Int64Builder, json = false): void {
    const b = this.bytes;
    const start = this.pos;
    let i = start;
    const sign = b[i];
    const negative = sign === MINUS;
    if (negative || (sign === PLUS && !json)) i++;
    const digitsStart = i;
    let n = 0;
    while (i < b.length && isDigit(b[i] as number)) {
      n = n * 10 + ((b[i] as number) - ZERO);
      i++;
    }
    const end = i;
    const next = i < b.length ? (b[i] as number) : -1;
    const separated =
      next === -1 ||
      next === SPACE ||
      next === TAB ||
      next === CR ||
      next === LF ||
      next === COMMA ||
      (json && next === CLOSE);
    if (sign === COMMA) this.fail(start, "expected a value before ','");
    if (end === digitsStart || !separated) {
      const word = this.word(start, json);
      this.fail(start, `${quote(word)} is not an integer`);
    }
    this.pos = end;
    if (end - digitsStart <= EXACT_DIGITS) {
      values.pushSafe(negative ? -n : n);
      return;
    }
    const text = new TextDecoder().decode(b.subarray(start, end));
    const big = BigInt(text);
    if (big < INT64_MIN || big > INT64_MAX) this.fail(start, `${quote(text)} is beyond int64`);
    values.pushBig(big);
  }

  /** The token starting at `start`, up to the next separator: what an error quotes. */
  private word(start: number, json: boolean): string {
    const b = this.bytes;
    let end = start;
    while (end < b.length) {
      const c = b[end] as number;
      if (c === SPACE || c === TAB || c === CR || c === LF || c === COMMA) break;
      if (json && (c === CLOSE || c === OPEN) && end > start) break;
      end++;
    }
    return new TextDecoder().decode(b.subarray(start, Math.max(end, start + 1)));
  }

  fail(at: number, message: string): never {
    const before = this.bytes.subarray(0, at);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < before.length; i++) {
      if (before[i] === LF) {
        line++;
        lineStart = i + 1;
      }
    }
    const column = [...new TextDecoder().decode(before.subarray(lineStart))].length + 1;
    throw new TensorOpsError(
      'E_FORMAT',
      `${this.label}: line ${line}, column ${column}: ${message}`,
    );
  }
}

/** Grows int64 storage as values arrive, as little-endian 32-bit halves (no BigInt per value). */
class Int64Builder {
  private words = new Uint32Array(2048);
  private length = 0;

  pushSafe(n: number): void {
    if (this.length * 2 === this.words.length) this.grow();
    const hi = Math.floor(n / TWO_32);
    this.words[this.length * 2] = n - hi * TWO_32;
    this.words[this.length * 2 + 1] = hi;
    this.length++;
  }

  pushBig(n: bigint): void {
    if (this.length * 2 === this.words.length) this.grow();
    new BigInt64Array(this.words.buffer)[this.length] = n;
    this.length++;
  }

  tensor(shape: number[]): Tensor {
    const bytes = new Uint8Array(this.words.buffer, 0, this.length * 8);
    // A tensor owns its whole buffer: the spare room of the last doubling is cut off.
    return createTensor('int64', shape, bytes.slice());
  }

  private grow(): void {
    const words = new Uint32Array(this.words.length * 2);
    words.set(this.words);
    this.words = words;
  }
}
