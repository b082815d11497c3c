import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonValue, parseStrictJson } from '../src/index.js';
import { isJsonNumber, isJsonObject } from '../src/strict-json.js';
import { expectError } from './helpers.js';

/** Back to plain JS values, for comparing with JSON.parse. */
function plain(v: JsonValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (isJsonNumber(v)) return Number(v.text);
  if (isJsonObject(v)) return Object.fromEntries([...v.entries].map(([k, x]) => [k, plain(x)]));
  return (v as readonly JsonValue[]).map(plain);
}

describe('parseStrictJson', () => {
  it('agrees with JSON.parse on every document without duplicate keys or unsafe numbers', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        expect(plain(parseStrictJson(text, 'doc'))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps numbers as written', () => {
    const doc = parseStrictJson('[9007199254740993, -0, 1e400, 0.1]', 'doc') as JsonValue[];
    expect(doc.map((n) => (n as { text: string }).text)).toEqual([
      '9007199254740993',
      '-0',
      '1e400',
      '0.1',
    ]);
  });

  it('refuses what RFC 8259 does not allow, naming the offset', () => {
    for (const [text, fragment] of [
      ['{"a":1,}', 'expected a string key'],
      ['[1,]', 'unexpected'],
      ['{"a":01}', "offset 6: expected ',' or '}'"],
      ["{'a':1}", 'expected a string key'],
      ['{"a":NaN}', "unexpected 'N'"],
      ['{"a":"\u0001"}', 'control character'],
      ['{"a":"\\x41"}', 'invalid escape'],
      ['{"a":1} x', 'after the document'],
      ['{"a":1', "expected ',' or '}'"],
      ['"\\udc00"', 'lone low surrogate'],
      ['{"a":1,"a":2}', "at offset 7: duplicate key 'a'"],
    ] as const) {
      expect(expectError(() => parseStrictJson(text, 'doc')).message, text).toContain(fragment);
    }
  });

  it('limits nesting to 128 levels (no stack overflow on hostile input)', () => {
    expect(() => parseStrictJson(`${'['.repeat(128)}${']'.repeat(128)}`, 'doc')).not.toThrow();
    expect(() => parseStrictJson('['.repeat(100000), 'doc')).toThrow(/nested deeper than 128/);
  });
});
