import { createTensor, type Tensor, TensorOpsError } from '@tensorops/core';
import { quote } from './text.js';
import {
  BOM,
  CLOSE,
  COMMA,
  CR,
  isBlank,
  JsonArrayShape,
  LF,
  OPEN,
  SPACE,
  TAB,
  TextPosition,
} from './text-grammar.js';

// Index tensors written as text, for shells: `seq 0 9`, `3,1,4`, a CSV of pairs, or a JSON array.
//
// Grammar (the input is UTF-8 bytes; only ASCII is meaningful):
// - A JSON array, when the first non-blank byte is `[`: nested and rectangular, integers only,
//   at most 64 deep (numpy's limit on dimensions). `[]` is an empty 1-D tensor; `[[1, 2], [3, 4]]`
//   has shape [2, 2].
// - Otherwise rows of integers, one row per line, separated by commas and/or blanks (space, tab).
//   A line ends at \n, \r\n or a lone \r. The shape is numpy.loadtxt's: a lone value is a
//   scalar (shape []), one line of k values is [k], one value per line is [lines], and k values
//   per line over several lines are [lines, k].
//   Blank lines at the end are ignored; a blank line before more data is an error.
// - An integer is an optional sign and decimal digits, parsed exactly as int64 (no rounding
//   through float64 for 9007199254740993); anything else (1.5, 1e3, 0x10, a word) is an error.
// The result is always int64. Every error names the line and column (both 1-based) it found.
//
// Every step is linear in the input, errors included: positions are found by counting, a number
// of more than 19 significant digits is refused without converting it, and an error quotes a
// bounded prefix of what it found.

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
/** Up to 15 digits a float64 accumulator is exact; longer numbers go through BigInt. */
const EXACT_DIGITS = 15;
/** Digits of the largest int64 magnitude (2^63 = 9223372036854775808): more is beyond int64. */
const INT64_DIGITS = 19;
/**
 * Bytes of a token an error decodes: at least 64 characters, more than quote() shows, so cutting
 * the token here never changes the message.
 */
const QUOTED_BYTES = 256;
const TWO_32 = 4294967296;

const MINUS = 0x2d;
const PLUS = 0x2b;
const ZERO = 0x30;
const NINE = 0x39;

const isDigit = (b: number) => b >= ZERO && b <= NINE;

/**
 * Parses index text (see the grammar above) into an int64 tensor. `input` is a string or UTF-8
 * bytes in a Uint8Array (a Buffer is one); anything else, another typed array included, is
 * refused (E_DTYPE) rather than read as bytes. `label` names the input in errors (`ids.txt`,
 * `stdin`, `--indices`).
 */
export function parseIndexText(input: Uint8Array | string, label: string): Tensor {
  const bytes = textBytes(input);
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

function textBytes(input: unknown): Uint8Array {
  if (typeof input === 'string') return new TextEncoder().encode(input);
  if (input instanceof Uint8Array) return input;
  throw new TensorOpsError(
    'E_DTYPE',
    `index text must be a string or a Uint8Array of UTF-8 bytes, got ${describe(input)}`,
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  return (value as object).constructor?.name ?? 'an object';
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
  return loadtxtShape(rows, width);
}

/** numpy.loadtxt's default shape: axes of length 1 squeezed out, a lone value a scalar. */
function loadtxtShape(rows: number, width: number): number[] {
  return [rows, width].filter((n) => n !== 1);
}

/** A JSON array of integers, its structure checked as it is read (JsonArrayShape). */
function parseJsonArray(p: Cursor, values: Int64Builder): number[] {
  const shape = new JsonArrayShape('an integer');
  for (;;) {
    const b = p.skipWhitespace();
    const problem =
      b === -1
        ? shape.end()
        : b === OPEN
          ? shape.open()
          : b === CLOSE
            ? shape.close()
            : b === COMMA
              ? shape.comma()
              : shape.leaf();
    if (problem !== undefined) p.fail(p.pos, problem);
    if (b === -1) return shape.shape();
    if (b === OPEN || b === CLOSE || b === COMMA) p.pos++;
    else p.readInteger(values, true);
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
    this.pos = bomLength(this.bytes);
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
    const c = this.peek();
    return c === -1 || c === LF || c === CR;
  }

  /** Steps over the line end at the cursor: \n, \r\n or \r. */
  nextLine(): void {
    this.pos += lineEndLength(this.bytes, this.pos);
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
      this.fail(start, `${quote(this.word(start, json))} is not an integer`);
    }
    this.pos = end;
    if (end - digitsStart <= EXACT_DIGITS) {
      values.pushSafe(negative ? -n : n);
      return;
    }
    let significant = digitsStart;
    while (significant < end - 1 && b[significant] === ZERO) significant++;
    const beyond = () => this.fail(start, `${quote(this.word(start, json))} is beyond int64`);
    if (end - significant > INT64_DIGITS) beyond();
    const digits = new TextDecoder().decode(b.subarray(significant, end));
    const big = BigInt(negative ? `-${digits}` : digits);
    if (big < INT64_MIN || big > INT64_MAX) beyond();
    values.pushBig(big);
  }

  /**
   * The token starting at `start`, up to the next separator, cut to QUOTED_BYTES: what an error
   * quotes.
   */
  private word(start: number, json: boolean): string {
    const b = this.bytes;
    const limit = Math.min(b.length, start + QUOTED_BYTES);
    let end = start;
    while (end < limit) {
      const c = b[end] as number;
      if (c === SPACE || c === TAB || c === CR || c === LF || c === COMMA) break;
      if (json && (c === CLOSE || c === OPEN) && end > start) break;
      end++;
    }
    // ignoreBOM: a byte order mark past the start is a stray character, quoted like any other.
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    return decoder.decode(b.subarray(start, Math.max(end, start + 1)));
  }

  fail(at: number, message: string): never {
    const { line, column } = lineAndColumn(this.bytes, at);
    throw new TensorOpsError(
      'E_FORMAT',
      `${this.label}: line ${line}, column ${column}: ${message}`,
    );
  }
}

/** 3 when the bytes start with the UTF-8 byte order mark, else 0. */
function bomLength(b: Uint8Array): number {
  return BOM.every((v, i) => b[i] === v) ? BOM.length : 0;
}

/** 2 for \r\n, 1 for a lone \n or \r, 0 for anything else (the end included). */
function lineEndLength(bytes: Uint8Array, at: number): number {
  const c = bytes[at];
  if (c === LF) return 1;
  if (c !== CR) return 0;
  return bytes[at + 1] === LF ? 2 : 1;
}

/** The 1-based line and column of byte `at` (TextPosition's); a leading BOM is no character. */
function lineAndColumn(bytes: Uint8Array, at: number): { line: number; column: number } {
  const position = new TextPosition();
  for (let i = bomLength(bytes); i < at; i++) position.advance(bytes[i] as number);
  if (at < bytes.length) position.advance(bytes[at] as number);
  else position.end();
  return position;
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
