import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTensorOpsError, type Tensor } from '@tensorops/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DataTextDtype,
  type DataTextOptions,
  parseDataText,
  readDataText,
} from '../src/index.js';
import { base64 } from './helpers.js';

// Golden cases from scripts/fixtures/data_text.py: numpy.loadtxt and np.array(json.loads(...)),
// and decimals rounded once to float32 / float16 / bfloat16 with exact fractions.
interface GoldenCase {
  readonly name: string;
  readonly text: string;
  readonly options: Omit<DataTextOptions, 'label'>;
  readonly expected?: { dtype: string; shape: number[]; b64: string };
  readonly error?: string;
}

const CASES: GoldenCase[] = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../fixtures/data-text/cases.json'), 'utf8'),
);

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isTensorOpsError(error) && error.code === 'E_FORMAT') return error.message;
    throw error;
  }
  throw new Error('parsed');
}

async function failureOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isTensorOpsError(error) && error.code === 'E_FORMAT') return error.message;
    throw error;
  }
  throw new Error('parsed');
}

async function* byteByByte(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
}

function expectTensor(t: Tensor, expected: NonNullable<GoldenCase['expected']>): void {
  expect({ dtype: t.dtype, shape: t.shape }).toEqual({
    dtype: expected.dtype,
    shape: expected.shape,
  });
  expect(Buffer.from(t.data).toString('hex')).toBe(
    Buffer.from(base64(expected.b64)).toString('hex'),
  );
}

describe('parseDataText: the golden cases of numpy', () => {
  it('cover rows, JSON, every dtype, hard roundings and errors', () => {
    expect(CASES.filter((c) => c.error !== undefined).length).toBeGreaterThan(15);
    const dtypes = new Set(CASES.map((c) => c.options.dtype));
    expect(dtypes.size).toBe(12);
  });

  for (const c of CASES) {
    it(`${c.name}: whole, and one byte at a time`, async () => {
      const options = { ...c.options, label: 'cases.txt' };
      const bytes = new TextEncoder().encode(c.text);
      if (c.expected !== undefined) {
        expectTensor(parseDataText(c.text, options), c.expected);
        expectTensor(await readDataText(byteByByte(bytes), options), c.expected);
      } else {
        const message = failure(() => parseDataText(bytes, options));
        expect(message.startsWith(`cases.txt:${c.error}: `)).toBe(true);
        expect(await failureOf(readDataText(byteByByte(bytes), options))).toBe(message);
      }
    });
  }
});

describe('parseDataText: random rows, read or refused as numpy.loadtxt reads or refuses them', () => {
  const RANDOM: (GoldenCase & { refused?: boolean })[] = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../../fixtures/data-text/random.json'), 'utf8'),
  );
  it('agree on all 200', () => {
    expect(RANDOM.length).toBe(200);
    for (const c of RANDOM) {
      const options = { ...c.options, label: 'r.txt' };
      if (c.expected === undefined) {
        expect(c.refused).toBe(true);
        expect(failure(() => parseDataText(c.text, options))).toMatch(/^r\.txt:\d+:\d+: /);
      } else expectTensor(parseDataText(c.text, options), c.expected);
    }
  });
});

describe('parseDataText: messages', () => {
  const at = (text: string, options: Omit<DataTextOptions, 'label'> = {}) =>
    failure(() => parseDataText(text, { ...options, label: 'rows.csv' }));

  it('name the line, the column and the token', () => {
    expect(at('1,2\n3,x\n', { delimiter: ',' })).toBe("rows.csv:2:3: 'x' is not a number");
    expect(at('1 2\n3\n')).toBe('rows.csv:2:2: this row has 1 value, the first row (line 1) 2');
    expect(at('1 2.5', { dtype: 'int16' })).toBe("rows.csv:1:3: '2.5' is not an integer (int16)");
    expect(at('300', { dtype: 'uint8' })).toBe(
      "rows.csv:1:1: '300' is out of range for uint8 [0, 255]",
    );
    expect(at('é 1')).toBe("rows.csv:1:1: '\\xe9' is not a number");
    expect(at('1 é\xff', {})).toContain('rows.csv:1:3: ');
    expect(at('1, 2', { delimiter: ';' })).toBe("rows.csv:1:1: '1,' is not a number");
  });

  it('say what is missing at the end, after a byte order mark and CRLF line ends', () => {
    expect(at('', { json: true })).toBe('rows.csv:1:1: no value: expected a number or an array');
    expect(at('[[1, 2],\r\n [3, 4]', { json: true })).toBe("rows.csv:2:8: expected ']'");
    expect(at('\ufeff1,2\r\n3,\r\n', { delimiter: ',' })).toBe(
      'rows.csv:2:3: expected a value after the delimiter',
    );
    for (const broken of [[0xef], [0xef, 0xbb], [0xef, 0xbb, 0x31]]) {
      expect(failure(() => parseDataText(new Uint8Array(broken), { label: 'b.txt' }))).toBe(
        'b.txt:1:1: a broken byte order mark at the start',
      );
    }
    const t = parseDataText('\ufeff1,2\r\n3,4\r\n', { label: 'x', delimiter: ',', dtype: 'int8' });
    expect([...t.data]).toEqual([1, 2, 3, 4]);
  });

  it('quote a bounded prefix of a huge bad token, at its start', () => {
    const message = at(`1 ${'9'.repeat(100)}x`);
    expect(message.startsWith("rows.csv:1:3: '99999")).toBe(true);
    expect(message.length).toBeLessThan(120);
  });

  it('refuse nesting deeper than 64 without recursion', () => {
    expect(at('['.repeat(1_000_000), { json: true })).toBe(
      'rows.csv:1:65: arrays nested deeper than 64 levels',
    );
  });

  it('refuse a delimiter that could be part of a number', () => {
    for (const d of ['.', '-', 'e', '1', '#', '\n', ',,']) {
      expect(() => parseDataText('1', { label: 'x', delimiter: d })).toThrow(/delimiter/);
    }
  });
});

describe('parseDataText: long numbers', () => {
  it('a number of a million digits is read correctly, a digit past the kept ones breaking a tie', () => {
    // 1 + 2^-11 is a float16 tie (to 1); a 1 a million digits later rounds it up.
    const above = `1.00048828125${'0'.repeat(1_000_000)}1`;
    const t = parseDataText(above, { label: 'x', dtype: 'float16' });
    expect(Buffer.from(t.data).toString('hex')).toBe('013c');
    const tie = parseDataText(`1.00048828125${'0'.repeat(1_000_000)}`, {
      label: 'x',
      dtype: 'float16',
    });
    expect(Buffer.from(tie.data).toString('hex')).toBe('003c');
    const big = parseDataText('9'.repeat(1_000_000), { label: 'x', dtype: 'float32' });
    expect(new Float32Array(big.data.slice().buffer)[0]).toBe(Number.POSITIVE_INFINITY);
  });
});

// ---- Rounding against a slow reference: exact rationals with BigInt ----

interface Format {
  readonly dtype: DataTextDtype;
  readonly precision: number;
  readonly minExponent: number;
  readonly maxExponent: number;
}

const FORMATS: Format[] = [
  { dtype: 'float32', precision: 24, minExponent: -126, maxExponent: 127 },
  { dtype: 'float16', precision: 11, minExponent: -14, maxExponent: 15 },
  { dtype: 'bfloat16', precision: 8, minExponent: -126, maxExponent: 127 },
];

/** A rational num / den, den > 0. */
interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

function decimalRational(text: string): Rational {
  const match = /^([+-]?)(\d*)\.?(\d*)(?:e([+-]?\d+))?$/i.exec(text);
  if (match === null) throw new Error(text);
  const [, sign, int, frac, exp] = match as unknown as string[];
  let num = BigInt(`${int}${frac}` || '0');
  let den = 1n;
  const e = Number(exp ?? 0) - (frac as string).length;
  if (e >= 0) num *= 10n ** BigInt(e);
  else den = 10n ** BigInt(-e);
  return { num: sign === '-' ? -num : num, den };
}

/** m × 2^k as a rational. */
function binaryRational(m: bigint, k: number): Rational {
  return k >= 0 ? { num: m << BigInt(k), den: 1n } : { num: m, den: 1n << BigInt(-k) };
}

function compare(a: Rational, b: Rational): number {
  const d = a.num * b.den - b.num * a.den;
  return d > 0n ? 1 : d < 0n ? -1 : 0;
}

/**
 * The obviously correct rounding: every value of the format (with 2^(maxExponent+1) standing for
 * infinity) as integer × quantum; walk to the two that bracket |x| and take the nearer, the even
 * one on a tie. Returns the magnitude as a number (Infinity past the largest).
 */
function referenceRound(text: string, f: Format): number {
  const x = decimalRational(text);
  const a = { num: x.num < 0n ? -x.num : x.num, den: x.den };
  if (a.num === 0n) return 0;
  // The binade of a: 2^e <= a < 2^(e+1), found by comparison.
  let e = a.num.toString(2).length - a.den.toString(2).length;
  while (compare(binaryRational(1n, e), a) > 0) e--;
  while (compare(binaryRational(1n, e + 1), a) <= 0) e++;
  const k = Math.max(e, f.minExponent) - f.precision + 1;
  // below = floor(a / 2^k)
  const scaled =
    k >= 0 ? { num: a.num, den: a.den << BigInt(k) } : { num: a.num << BigInt(-k), den: a.den };
  const below = scaled.num / scaled.den;
  const lower = binaryRational(below, k);
  const upper = binaryRational(below + 1n, k);
  const dLow = compare(
    { num: a.num * lower.den - lower.num * a.den, den: a.den * lower.den },
    {
      num: upper.num * a.den - a.num * upper.den,
      den: a.den * upper.den,
    },
  );
  const pick = dLow < 0 || (dLow === 0 && below % 2n === 0n) ? below : below + 1n;
  const value = Number(pick) * 2 ** k;
  return value >= 2 ** (f.maxExponent + 1) ? Number.POSITIVE_INFINITY : value;
}

function firstValue(t: Tensor): number {
  const v = new DataView(t.data.buffer, t.data.byteOffset);
  if (t.dtype === 'float32') return v.getFloat32(0, true);
  const bits = v.getUint16(0, true);
  if (t.dtype === 'bfloat16')
    return new Float32Array(new Uint32Array([bits << 16]).buffer)[0] as number;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (exponent === 0 ? fraction * 2 ** -24 : (1024 + fraction) * 2 ** (exponent - 25));
}

/** The exact decimal of m × 2^k (m a non-negative integer). */
function exactDecimal(m: bigint, k: number): string {
  if (k >= 0) return (m << BigInt(k)).toString();
  const digits = (m * 5n ** BigInt(-k)).toString().padStart(-k + 1, '0');
  return `${digits.slice(0, digits.length + k)}.${digits.slice(digits.length + k)}`;
}

/** A midpoint of `f` (2 × integer + 1) × 2^(k-1), nudged by ±10^-digits or not at all, as text. */
function nearMidpoint(f: Format) {
  return fc
    .record({
      exponent: fc.integer({ min: f.minExponent - f.precision, max: f.maxExponent }),
      mantissa: fc.bigInt({ min: 0n, max: (1n << BigInt(f.precision)) - 1n }),
      nudge: fc.constantFrom(-1, 0, 1),
      depth: fc.integer({ min: 1, max: 40 }),
      negative: fc.boolean(),
    })
    .map(({ exponent, mantissa, nudge, depth, negative }) => {
      const k = Math.max(exponent, f.minExponent) - f.precision + 1;
      const m = 2n * mantissa + 1n;
      let text = exactDecimal(m, k - 1);
      if (!text.includes('.')) text += '.';
      const frac = text.length - text.indexOf('.') - 1;
      const scale = frac + depth;
      const n = BigInt(text.replace('.', '') + '0'.repeat(depth)) + BigInt(nudge);
      const s = n.toString().padStart(scale + 1, '0');
      text = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
      return negative ? `-${text}` : text;
    });
}

const anyDecimal = fc
  .record({
    digits: fc.stringMatching(/^[0-9]{1,60}$/),
    exponent: fc.integer({ min: -60, max: 45 }),
    negative: fc.boolean(),
  })
  .map(({ digits, exponent, negative }) => `${negative ? '-' : ''}${digits}e${exponent}`);

describe('parseDataText: rounding once, against exact rationals', () => {
  for (const f of FORMATS) {
    it(`${f.dtype}: midpoints, just off them, and any decimal`, () => {
      fc.assert(
        fc.property(fc.oneof(nearMidpoint(f), anyDecimal), (text) => {
          const got = firstValue(parseDataText(text, { label: 'x', dtype: f.dtype }));
          const want = referenceRound(text, f);
          expect(Math.abs(got)).toBe(want);
          expect(Object.is(Math.sign(got), -0) || got < 0).toBe(text.startsWith('-'));
        }),
        { numRuns: 400 },
      );
    });
  }

  it('float64 and every integer dtype read exactly', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
        fc.nat(3),
        (n, zeros) => {
          const text = n < 0n ? `-${'0'.repeat(zeros)}${-n}` : `+${'0'.repeat(zeros)}${n}`;
          const t = parseDataText(text, { label: 'x', dtype: 'int64' });
          expect(new DataView(t.data.buffer).getBigInt64(0, true)).toBe(n);
          const d = parseDataText(`${text}.0`, { label: 'x' });
          expect(new DataView(d.data.buffer).getFloat64(0, true)).toBe(Number(n));
        },
      ),
      { numRuns: 300 },
    );
  });
});
