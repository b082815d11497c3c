// The .npy header is the repr() of a Python dict. numpy reads it with ast.literal_eval; we parse
// the same literal subset by hand (no eval, no regexes) and then insist on exactly the three keys
// numpy writes, so a crafted header can neither run code nor smuggle in anything else.

import { TensorOpsError } from '@tensorops/core';
import { quote } from './text.js';

/** A parsed Python literal. Tuples and lists stay distinct: numpy requires `shape` to be a tuple. */
export type PyValue =
  | string
  | bigint
  | boolean
  | null
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'tuple'; readonly items: readonly PyValue[] }
  | { readonly kind: 'list'; readonly items: readonly PyValue[] }
  | { readonly kind: 'dict'; readonly entries: ReadonlyMap<string, PyValue> };

/** The validated header dict. `descr` is left as parsed: only the dtype layer knows what it means. */
export interface NpyHeaderDict {
  readonly descr: PyValue;
  readonly fortranOrder: boolean;
  readonly shape: readonly bigint[];
}

const KEYS = ['descr', 'fortran_order', 'shape'] as const;
const EXPECTED = "expected exactly 'descr', 'fortran_order', 'shape'";
// Real descrs nest two or three levels (structured fields with subarray shapes); anything deeper is
// hostile, and the recursive parser must not be driven into a stack overflow.
const MAX_DEPTH = 32;

function fail(message: string): never {
  throw new TensorOpsError('E_FORMAT', `.npy header: ${message}`);
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isNameChar(c: string | undefined): boolean {
  return (
    c !== undefined &&
    ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_')
  );
}

class LiteralParser {
  private pos = 0;

  /** `python2Longs`: read `3L` as 3, as numpy does for headers written by Python 2. */
  constructor(
    private readonly text: string,
    private readonly python2Longs: boolean,
  ) {}

  parseDocument(): PyValue {
    const value = this.value(0);
    this.skipSpace();
    if (this.pos < this.text.length) {
      fail(`unexpected text after the header dict at offset ${this.pos}: ${this.preview()}`);
    }
    return value;
  }

  private preview(): string {
    return quote(this.text.slice(this.pos, this.pos + 24));
  }

  private skipSpace(): void {
    while (isSpace(this.text[this.pos])) this.pos++;
  }

  private value(depth: number): PyValue {
    if (depth > MAX_DEPTH) fail(`literal nested deeper than ${MAX_DEPTH} levels`);
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === undefined) fail('ends early: expected a value');
    if (c === '{') return this.dict(depth);
    if (c === '(') return this.tuple(depth);
    if (c === '[') return this.list(depth);
    if (c === "'" || c === '"') return this.string();
    if (isDigit(c) || c === '-' || c === '+' || c === '.') return this.number();
    if (isNameChar(c)) return this.name();
    return fail(`unexpected ${quote(c)} at offset ${this.pos}`);
  }

  /** Consumes `close` or `,`; returns true at `close`. */
  private separator(close: string, what: string): boolean {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === close) {
      this.pos++;
      return true;
    }
    if (c === ',') {
      this.pos++;
      this.skipSpace();
      if (this.text[this.pos] === close) {
        this.pos++;
        return true;
      }
      return false;
    }
    if (c === undefined) return fail(`ends early: ${what} not closed with '${close}'`);
    return fail(
      `expected ',' or '${close}' in ${what} at offset ${this.pos}, got ${this.preview()}`,
    );
  }

  private dict(depth: number): PyValue {
    this.pos++;
    const entries = new Map<string, PyValue>();
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'dict', entries };
    }
    for (;;) {
      const key = this.value(depth + 1);
      if (typeof key !== 'string') fail(`dict key ${describe(key)} is not a string`);
      this.skipSpace();
      if (this.text[this.pos] !== ':') {
        fail(`expected ':' after key ${quote(key)} at offset ${this.pos}, got ${this.preview()}`);
      }
      this.pos++;
      if (entries.has(key)) fail(`duplicate key ${quote(key)}`);
      entries.set(key, this.value(depth + 1));
      if (this.separator('}', 'dict')) return { kind: 'dict', entries };
    }
  }

  private tuple(depth: number): PyValue {
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ')') {
      this.pos++;
      return { kind: 'tuple', items: [] };
    }
    const first = this.value(depth + 1);
    this.skipSpace();
    // `(3)` is just 3 in Python, not a tuple: numpy then rejects it as a shape, and so do we.
    if (this.text[this.pos] === ')') {
      this.pos++;
      return first;
    }
    const items = [first];
    while (!this.separator(')', 'tuple')) items.push(this.value(depth + 1));
    return { kind: 'tuple', items };
  }

  private list(depth: number): PyValue {
    this.pos++;
    const items: PyValue[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'list', items };
    }
    do items.push(this.value(depth + 1));
    while (!this.separator(']', 'list'));
    return { kind: 'list', items };
  }

  private string(): string {
    const start = this.pos;
    const q = this.text[this.pos++];
    let out = '';
    for (;;) {
      const c = this.text[this.pos++];
      if (c === undefined || c === '\n') fail(`unterminated string starting at offset ${start}`);
      if (c === q) return out;
      if (c === '\\') {
        const e = this.text[this.pos++];
        // numpy's headers never need escapes; only these three keep their literal meaning.
        if (e !== '\\' && e !== "'" && e !== '"') {
          fail(`unsupported escape ${quote(`\\${e ?? ''}`)} in string at offset ${start}`);
        }
        out += e;
      } else out += c;
    }
  }

  private number(): PyValue {
    const start = this.pos;
    if (this.text[this.pos] === '-' || this.text[this.pos] === '+') this.pos++;
    // Take the whole token (3.0, 1e5, 0x10, 3L) so the message can show what was there.
    while (
      isNameChar(this.text[this.pos]) ||
      this.text[this.pos] === '.' ||
      ((this.text[this.pos] === '-' || this.text[this.pos] === '+') &&
        (this.text[this.pos - 1] === 'e' || this.text[this.pos - 1] === 'E'))
    ) {
      this.pos++;
    }
    const text = this.text.slice(start, this.pos);
    const signed = text[0] === '-' || text[0] === '+';
    let digits = signed ? text.slice(1) : text;
    if (digits.length === 0) fail(`unexpected ${quote(text)} at offset ${start}`);
    if (this.python2Longs && digits.length > 1 && digits.endsWith('L'))
      digits = digits.slice(0, -1);
    for (const ch of digits) if (!isDigit(ch)) return { kind: 'number', text };
    // Python 3 refuses leading zeros (`03`) but for zero itself (`00`); so does numpy.
    if (digits[0] === '0' && /[1-9]/.test(digits)) {
      fail(`integer ${quote(text)} at offset ${start} has a leading zero`);
    }
    return BigInt(signed && text[0] === '-' ? `-${digits}` : digits);
  }

  private name(): PyValue {
    const start = this.pos;
    while (isNameChar(this.text[this.pos])) this.pos++;
    const word = this.text.slice(start, this.pos);
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (word === 'None') return null;
    return fail(`unexpected name ${quote(word)} at offset ${start}; only literals are allowed`);
  }
}

/** Python-style rendering of a parsed value, for messages. */
export function describe(value: PyValue): string {
  const text = render(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function render(value: PyValue): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return quote(value);
  switch (value.kind) {
    case 'number':
      return value.text;
    case 'tuple':
      return value.items.length === 1
        ? `(${render(value.items[0] as PyValue)},)`
        : `(${value.items.map(render).join(', ')})`;
    case 'list':
      return `[${value.items.map(render).join(', ')}]`;
    case 'dict':
      return `{${[...value.entries].map(([k, v]) => `${quote(k)}: ${render(v)}`).join(', ')}}`;
  }
}

/**
 * Parses a Python literal with the grammar numpy's headers use. Throws E_FORMAT. `python2Longs`
 * accepts Python 2's `3L` integers, which numpy still reads in version 1.0 and 2.0 headers.
 */
export function parsePyLiteral(text: string, python2Longs = false): PyValue {
  return new LiteralParser(text, python2Longs).parseDocument();
}

/**
 * Parses and validates the header dict (`python2Longs` as for {@link parsePyLiteral}): exactly the
 * keys descr, fortran_order and shape;
 * fortran_order True or False; shape a tuple of non-negative ints (as bigint: a hostile header may
 * claim dimensions beyond 2^53, and sizes must be checked before anything is allocated).
 */
export function parseNpyHeaderDict(text: string, python2Longs = false): NpyHeaderDict {
  const doc = parsePyLiteral(text, python2Longs);
  if (doc === null || typeof doc !== 'object' || doc.kind !== 'dict') {
    fail(`is not a dict: ${describe(doc)}`);
  }
  for (const key of doc.entries.keys()) {
    if (!(KEYS as readonly string[]).includes(key)) fail(`unknown key ${quote(key)} (${EXPECTED})`);
  }
  for (const key of KEYS) if (!doc.entries.has(key)) fail(`missing key '${key}' (${EXPECTED})`);

  const fortranOrder = doc.entries.get('fortran_order');
  if (typeof fortranOrder !== 'boolean') {
    fail(`'fortran_order' must be True or False, got ${describe(fortranOrder as PyValue)}`);
  }
  const shape = doc.entries.get('shape') as PyValue;
  if (shape === null || typeof shape !== 'object' || shape.kind !== 'tuple') {
    fail(`'shape' must be a tuple of ints like (2, 3), got ${describe(shape)}`);
  }
  const dims = shape.items.map((d, i) => {
    if (typeof d !== 'bigint') {
      fail(`shape ${describe(shape)} dimension ${i} is ${describe(d)}, not an integer`);
    }
    if (d < 0n) fail(`shape ${describe(shape)} dimension ${i} is ${d}, which is negative`);
    return d;
  });
  return { descr: doc.entries.get('descr') as PyValue, fortranOrder, shape: dims };
}
