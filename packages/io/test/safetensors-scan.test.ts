import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSafetensors, parseSafetensorsHeader } from '../src/index.js';
import {
  SAFETENSORS_DTYPES,
  type SafetensorsEntry,
  safetensorsEntries,
  safetensorsEntriesStrictly,
} from '../src/safetensors.js';
import { type EntryMaker, scanSafetensorsHeader } from '../src/safetensors-scan.js';
import { quote } from '../src/text.js';
import { expectError } from './helpers.js';

interface Fields {
  name: string;
  formatDtype: string;
  shape: number[];
  begin: number;
  end: number;
}

const fields: EntryMaker<Fields> = (name, formatDtype, shape, begin, end) =>
  SAFETENSORS_DTYPES.includes(formatDtype) ? { name, formatDtype, shape, begin, end } : undefined;

const strictFields = (e: SafetensorsEntry): Fields => ({
  name: e.name,
  formatDtype: e.formatDtype,
  shape: [...e.shape],
  begin: e.begin,
  end: e.end,
});

type Outcome = { ok: { entries: Fields[]; metadata: unknown } } | { error: string };

/** The entries and metadata `read` gives a header text, or its error message. */
function outcome(read: typeof safetensorsEntries, text: string): Outcome {
  try {
    const r = read(text);
    return { ok: { entries: r.entries.map(strictFields), metadata: r.metadata } };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const strictly = (text: string): Outcome => outcome(safetensorsEntriesStrictly, text);

// Header texts near the usual shape: every token may come out slightly wrong (a duplicate key, a
// number the format refuses or that needs exact integers, an escape, a lone surrogate, a missing
// or extra key, another type), with random white space between tokens.
const space = fc.constantFrom('', '', '', ' ', '\n', '\t ', '\r\n');
const nameText = fc.oneof(
  fc.constantFrom('a', 'b', 'w.0', '__metadata__', 'x"y', 'tab\there', 'é', '😀'),
  fc.string({ maxLength: 6 }),
);
// A string literal: JSON.stringify's, one with \u escapes, or a malformed one.
const literal = (text: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: text.map((s) => JSON.stringify(s)) },
    {
      weight: 1,
      arbitrary: text.map(
        (s) =>
          `"${[...s].map((c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0').slice(-4)}`).join('')}"`,
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('"\\ud800"', '"a\\x"', '"\u0001"', '"open', "'q'") },
  );
const integerText = fc.oneof(
  { weight: 8, arbitrary: fc.nat(40).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '01',
      '-1',
      '1.0',
      '1e2',
      '1E2',
      '-0',
      '999999999999999',
      '1000000000000000',
      '9007199254740991',
      '9007199254740993',
      '"1"',
      'null',
      '[]',
    ),
  },
);
const integerList = (length?: number) =>
  fc
    .tuple(
      fc.array(fc.tuple(space, integerText, space), {
        minLength: length ?? 0,
        maxLength: length ?? 4,
      }),
      space,
    )
    .map(([items, s]) => `[${items.map((i) => i.join('')).join(',') || s}]`);
const member = (key: string, value: fc.Arbitrary<string>) =>
  fc.tuple(space, value, space).map(([s, v, t]) => `${s}"${key}"${t}:${s}${v}${t}`);
const entry = fc
  .tuple(
    member(
      'dtype',
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...SAFETENSORS_DTYPES).map((d) => `"${d}"`) },
        { weight: 1, arbitrary: fc.constantFrom('"X"', '"f32"', '1', '"\\u0046\\u0033\\u0032"') },
      ),
    ),
    member('shape', integerList()),
    member('data_offsets', fc.oneof({ weight: 6, arbitrary: integerList(2) }, integerList())),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant([] as string[]) },
      fc.constantFrom(['"dtype":"U8"'], ['"extra":1'], ['"shape":[]']),
    ),
    fc.boolean(),
  )
  .map(([d, s, o, extra, drop]) => {
    const members = [d, s, o, ...extra];
    if (drop) members.pop();
    return members;
  })
  .chain((members) => fc.shuffledSubarray(members, { minLength: members.length }))
  .map((members) => `{${members.join(',')}}`);
const metadata = fc
  .array(fc.tuple(literal(nameText), fc.oneof(literal(fc.string()), integerText)), {
    maxLength: 3,
  })
  .map((pairs) => `{${pairs.map(([k, v]) => `${k}:${v}`).join(',')}}`);
const header = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.tuple(literal(nameText), entry) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('"__metadata__"'), metadata) },
    ),
    { maxLength: 5 },
  )
  .chain((members) => fc.tuple(fc.constant(members), space, space))
  .map(([members, s, t]) => `{${s}${members.map(([k, v]) => `${k}:${v}`).join(`,${s}`)}${t}}${t}`);

describe('the one-pass .safetensors header scan', () => {
  it('accepts only what the strict path accepts, with the same entries, metadata or error', () => {
    let scanned = 0;
    fc.assert(
      fc.property(header, (text) => {
        expect(outcome(safetensorsEntries, text)).toEqual(strictly(text));
        const fast = scanSafetensorsHeader(text, fields);
        if (fast === undefined) return;
        scanned++;
        if ('repeatedKey' in fast) {
          expect(strictly(text)).toEqual({
            error: `.safetensors header: invalid JSON at offset ${fast.at}: duplicate key ${quote(fast.repeatedKey)}`,
          });
        } else {
          const ok = { entries: fast.entries, metadata: fast.metadata };
          expect(strictly(text)).toEqual({ ok });
        }
      }),
      { numRuns: 3000 },
    );
    // The property holds trivially for a scan that leaves everything to the strict path.
    expect(scanned).toBeGreaterThan(300);
  });

  it('reads a writer-made header of 10^4 tensors itself, names with escapes included', () => {
    const tensors = Array.from({ length: 10_000 }, (_, i) => ({
      name: i % 7 === 0 ? `layer.${i}."quoted"\\\u0001é😀` : `layer.${i}.weight`,
      tensor: { dtype: 'float32' as const, shape: [i % 3, 2], data: new Uint8Array((i % 3) * 8) },
    }));
    const bytes = encodeSafetensors(tensors, { format: 'pt', 'a"b': 'c\\d\n' });
    const length = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const json = new TextDecoder().decode(bytes.subarray(8, 8 + length)).trimEnd();
    const fast = scanSafetensorsHeader(json, fields);
    expect(fast).toBeDefined();
    expect(fast && 'entries' in fast).toBe(true);
    expect(strictly(json)).toEqual({ ok: fast });
    const header = parseSafetensorsHeader(bytes, bytes.length);
    expect(header.tensors.length).toBe(10_000);
    expect(header.metadata).toEqual({ format: 'pt', 'a"b': 'c\\d\n' });
  });

  it('reports a repeated key itself, and leaves big or 16-digit integers and deep values', () => {
    const one = (info: string) => `{"a":{${info}}}`;
    const ok = '"dtype":"U8","shape":[1],"data_offsets":[0,1]';
    const repeats = [
      [`{"a":{${ok}}, "a":{${ok}}}`, 'a'],
      ['{"__metadata__":{"k":"v",\n"k":"w"}}', 'k'],
      ['{"__metadata__":{},"__metadata__":{}}', '__metadata__'],
    ] as const;
    for (const [text, key] of repeats) {
      expect(scanSafetensorsHeader(text, fields)).toEqual({
        repeatedKey: key,
        at: text.lastIndexOf(`"${key}"`),
      });
    }
    const cases = [
      one(`${ok},"dtype":"U8"`),
      one('"dtype":"U8","shape":[1],"data_offsets":[0,9007199254740993]'),
      one('"dtype":"U8","shape":[0,1000000000000000],"data_offsets":[0,0]'),
      `{"__metadata__":{"k":${'['.repeat(200)}${']'.repeat(200)}}}`,
    ];
    for (const text of cases) expect(scanSafetensorsHeader(text, fields)).toBeUndefined();
    // A 16-digit safe integer is read exactly on the strict path.
    const sixteen = parseSafetensorsHeader(
      headerBytes(one('"dtype":"U8","shape":[0,1000000000000000],"data_offsets":[0,0]')),
    );
    expect(sixteen.tensors[0]?.shape).toEqual([0, 1e15]);
    const [twice] = repeats[0];
    expect(expectError(() => parseSafetensorsHeader(headerBytes(twice))).message).toBe(
      `.safetensors header: invalid JSON at offset ${twice.lastIndexOf('"a"')}: duplicate key 'a'`,
    );
    const deep = cases[3] as string;
    expect(expectError(() => parseSafetensorsHeader(headerBytes(deep))).message).toBe(
      // The top object is level 0, `__metadata__` level 1, its value's k-th '[' level k + 1.
      `.safetensors header: invalid JSON at offset ${deep.indexOf('[') + 127}: nested deeper than 128 levels`,
    );
  });

  it('scans a long header in one pass: 10^5 tensors, a name of 10^6 characters', () => {
    const long = 'n'.repeat(1_000_000);
    const parts = [`"${long}":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}`];
    for (let i = 0; i < 100_000; i++) {
      parts.push(`"t${i}":{"dtype":"U8","shape":[1],"data_offsets":[${i},${i + 1}]}`);
    }
    const text = `{${parts.join(',')}}`;
    const fast = scanSafetensorsHeader(text, fields);
    const entries = fast !== undefined && 'entries' in fast ? fast.entries : [];
    expect(entries.length).toBe(100_001);
    expect(entries[0]?.name).toBe(long);
    expect(entries[100_000]).toEqual({
      name: 't99999',
      formatDtype: 'U8',
      shape: [1],
      begin: 99_999,
      end: 100_000,
    });
  });
});

/** The bytes of a .safetensors file with this header and no data. */
function headerBytes(json: string): Uint8Array {
  const text = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + text.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  return out;
}
