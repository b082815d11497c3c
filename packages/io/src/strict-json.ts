// A strict JSON reader for file headers. JSON.parse silently keeps the last of two duplicate keys
// and turns 9007199254740993 into ...992, so a header could say one thing to us and another to a
// different reader. This parser refuses duplicates and hands numbers back as their source text,
// for the caller to check as exact integers. Grammar: RFC 8259, nothing more (no comments, no
// trailing commas, no NaN), with serde_json's nesting limit.

import { TensorOpsError } from '@tensorops/core';
import { quote } from './text.js';

/** A number as written in the document; the caller decides what range it accepts. */
export interface JsonNumber {
  readonly kind: 'number';
  readonly text: string;
}

/** An object with its keys in document order; duplicate keys are refused while parsing. */
export interface JsonObject {
  readonly kind: 'object';
  readonly entries: ReadonlyMap<string, JsonValue>;
}

export type JsonValue = string | boolean | null | JsonNumber | JsonObject | readonly JsonValue[];

/** serde_json's default recursion limit. */
const MAX_DEPTH = 128;

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && (v as JsonObject).kind === 'object'
  );
}

export function isJsonNumber(v: JsonValue | undefined): v is JsonNumber {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && (v as JsonNumber).kind === 'number'
  );
}

/** Short rendering of a value's type for messages. */
export function jsonKind(v: JsonValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string ${quote(v)}`;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return 'an array';
  return isJsonNumber(v) ? `the number ${quote(v.text)}` : 'an object';
}

function jsonError(what: string, at: number, message: string): TensorOpsError {
  return new TensorOpsError('E_FORMAT', `${what}: invalid JSON at offset ${at}: ${message}`);
}

/**
 * The error for a key repeated in an object, the key's opening quote at offset `at`: also for a
 * reader that finds the repeat without this parser (safetensors-scan.ts).
 */
export function duplicateKeyError(what: string, key: string, at: number): TensorOpsError {
  return jsonError(what, at, `duplicate key ${quote(key)}`);
}

class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly what: string,
  ) {}

  fail(message: string, at = this.pos): never {
    throw jsonError(this.what, at, message);
  }

  document(): JsonValue {
    const value = this.value(0);
    this.space();
    if (this.pos < this.text.length) {
      this.fail(`unexpected ${quote(this.text.slice(this.pos, this.pos + 16))} after the document`);
    }
    return value;
  }

  private space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else return;
    }
  }

  private value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH} levels`);
    this.space();
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.word('true', true);
      case 'f':
        return this.word('false', false);
      case 'n':
        return this.word('null', null);
      case undefined:
        return this.fail('ends early: expected a value');
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.number();
        return this.fail(`unexpected ${quote(c)}`);
    }
  }

  private word<T extends JsonValue>(word: string, value: T): T {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length;
      return value;
    }
    return this.fail(`unexpected ${quote(this.text.slice(this.pos, this.pos + word.length))}`);
  }

  private object(depth: number): JsonObject {
    this.pos++;
    const entries = new Map<string, JsonValue>();
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', entries };
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const at = this.pos;
      const key = this.string();
      if (entries.has(key)) throw duplicateKeyError(this.what, key, at);
      this.space();
      if (this.text[this.pos] !== ':') this.fail(`expected ':' after key ${quote(key)}`);
      this.pos++;
      entries.set(key, this.value(depth + 1));
      this.space();
      const c = this.text[this.pos++];
      if (c === '}') return { kind: 'object', entries };
      if (c !== ',') this.fail("expected ',' or '}' in an object", this.pos - 1);
    }
  }

  private array(depth: number): JsonValue[] {
    this.pos++;
    const items: JsonValue[] = [];
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.space();
      const c = this.text[this.pos++];
      if (c === ']') return items;
      if (c !== ',') this.fail("expected ',' or ']' in an array", this.pos - 1);
    }
  }

  private string(): string {
    const start = this.pos++;
    let out = '';
    let run = this.pos;
    for (;;) {
      const code = this.text.charCodeAt(this.pos);
      if (Number.isNaN(code)) this.fail('unterminated string', start);
      if (code === 0x22) {
        out += this.text.slice(run, this.pos);
        this.pos++;
        return out;
      }
      if (code < 0x20) this.fail('control character in a string (escape it)');
      if (code !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.text.slice(run, this.pos);
      out += this.escape();
      run = this.pos;
    }
  }

  private escape(): string {
    const at = this.pos;
    const e = this.text[this.pos + 1];
    this.pos += 2;
    switch (e) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const unit = this.hex4(at);
        // Lone surrogates are not text: serde_json refuses them too.
        if (unit >= 0xdc00 && unit <= 0xdfff) this.fail('lone low surrogate in \\u escape', at);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          if (this.text[this.pos] !== '\\' || this.text[this.pos + 1] !== 'u') {
            this.fail('lone high surrogate in \\u escape', at);
          }
          this.pos += 2;
          const low = this.hex4(at);
          if (low < 0xdc00 || low > 0xdfff) this.fail('lone high surrogate in \\u escape', at);
          return String.fromCharCode(unit, low);
        }
        return String.fromCharCode(unit);
      }
      default:
        return this.fail(`invalid escape ${quote(`\\${e ?? ''}`)}`, at);
    }
  }

  private hex4(at: number): number {
    const digits = this.text.slice(this.pos, this.pos + 4);
    let v = 0;
    for (let i = 0; i < 4; i++) {
      const d = Number.parseInt(digits[i] ?? 'x', 16);
      if (Number.isNaN(d)) this.fail('\\u escape needs four hex digits', at);
      v = v * 16 + d;
    }
    this.pos += 4;
    return v;
  }

  private number(): JsonNumber {
    const start = this.pos;
    if (this.text[this.pos] === '-') this.pos++;
    if (this.text[this.pos] === '0') this.pos++;
    else if (!this.digits()) this.fail('a number needs digits', start);
    if (this.text[this.pos] === '.') {
      this.pos++;
      if (!this.digits()) this.fail('a fraction needs digits', start);
    }
    if (this.text[this.pos] === 'e' || this.text[this.pos] === 'E') {
      this.pos++;
      if (this.text[this.pos] === '+' || this.text[this.pos] === '-') this.pos++;
      if (!this.digits()) this.fail('an exponent needs digits', start);
    }
    return { kind: 'number', text: this.text.slice(start, this.pos) };
  }

  private digits(): boolean {
    const start = this.pos;
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c >= 0x30 && c <= 0x39) this.pos++;
      else break;
    }
    return this.pos > start;
  }
}

/**
 * Parses one JSON document. Errors are E_FORMAT and start with `what` (e.g. `.safetensors header`).
 */
export function parseStrictJson(text: string, what: string): JsonValue {
  return new Parser(text, what).document();
}

/**
 * A non-negative integer that JS numbers hold exactly: plain digits, no sign, fraction or exponent
 * (serde reads those as floats and refuses them where it wants a usize).
 */
export function jsonSafeInteger(v: JsonValue | undefined, what: string, context: string): number {
  if (!isJsonNumber(v)) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${context}: ${what} must be an integer, got ${jsonKind(v)}`,
    );
  }
  const text = v.text;
  let digitsOnly = text.length > 0;
  for (const ch of text) if (ch < '0' || ch > '9') digitsOnly = false;
  if (!digitsOnly || (text.length > 1 && text[0] === '0')) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${context}: ${what} must be a non-negative integer, got ${quote(text)}`,
    );
  }
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${context}: ${what} ${text} is not a safe integer (largest: 2^53-1 = ${Number.MAX_SAFE_INTEGER})`,
    );
  }
  return n;
}
