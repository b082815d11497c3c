import {
  bfloat16ToNumber,
  float8ToNumber,
  float16ToNumber,
  isFloat8Dtype,
  NUMERIC_DTYPES,
} from '@tensorops/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  referenceReprFloat,
  referenceShortestDigits,
} from '../../test/shortest-digits-reference.js';
import { stripZeros } from './exact-decimal.js';
import { exactShortest } from './exact-shortest.js';
import { type FloatDtype, reprFloat } from './float-text.js';
import { binaryValue, type NarrowDtype, shortestDigits } from './shortest-digits.js';

// shortestDigits and reprFloat against the reference search and layout, character for
// character: every float16, bfloat16 and float8 value, float32 over every exponent with
// random mantissas plus the hard cases (powers of two, subnormals, the extremes, nine-digit
// forms, exact ties, candidates that fall exactly on a rounding boundary), and float64. The
// exact search that shortestDigits falls back on, against the reference on its own.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function float32Of(bits: number): number {
  u32[0] = bits;
  return f32[0] as number;
}

/** `count` uniform random 32-bit words, the same on every run. */
function words(count: number, seed: number): number[] {
  return fc.sample(fc.noBias(fc.integer({ min: 0, max: 0xffffffff })), { seed, numRuns: count });
}

/** `perExponent` float32 values of every exponent field, their other bits random under `mask`. */
function everyExponent(perExponent: number, seed: number, mask: number): number[] {
  return words(255 * perExponent, seed).map((w, i) => {
    const field = Math.floor(i / perExponent);
    return float32Of((field << 23) | (w & mask));
  });
}

/** The float32 values of every exponent field with each of `fractions` as mantissa bits. */
function withFractions(fractions: readonly number[]): number[] {
  const values: number[] = [];
  for (let field = 0; field < 255; field++) {
    for (const fraction of fractions) values.push(float32Of((field << 23) | fraction));
  }
  return values;
}

/** The values among `values` whose text or digits differ from the reference's, with both. */
function mismatches(values: Iterable<number>, dtype: FloatDtype): string[] {
  const out: string[] = [];
  for (const x of values) {
    const text = reprFloat(x, dtype);
    const expected = referenceReprFloat(x, dtype);
    if (text !== expected) out.push(`${x}: ${text}, reference ${expected}`);
    if (!Number.isFinite(x) || x === 0) continue;
    const a = Math.abs(x);
    const fast = shortestDigits(a, dtype);
    const slow = referenceShortestDigits(a, dtype);
    if (fast.digits !== slow.digits || fast.exp !== slow.exp) {
      out.push(`${a}: ${fast.digits}e${fast.exp}, reference ${slow.digits}e${slow.exp}`);
    }
  }
  return out;
}

/** The values among `values` whose digits from the exact search differ from the reference's. */
function exactMismatches(values: Iterable<number>, dtype: NarrowDtype): string[] {
  const out: string[] = [];
  for (const x of values) {
    if (!Number.isFinite(x) || x === 0) continue;
    const a = Math.abs(x);
    const { units, scale } = exactShortest(binaryValue(a, dtype));
    const all = String(units); // may end in zeros
    const exp = scale + all.length - 1;
    const slow = referenceShortestDigits(a, dtype);
    if (stripZeros(all) !== slow.digits || exp !== slow.exp) {
      out.push(`${a}: ${all}e${exp}, reference ${slow.digits}e${slow.exp}`);
    }
  }
  return out;
}

function* patterns16(decode: (bits: number) => number): Generator<number> {
  for (let bits = 0; bits < 0x10000; bits++) yield decode(bits);
}

describe('shortestDigits matches the reference search', () => {
  it('on every float16', () => {
    expect(mismatches(patterns16(float16ToNumber), 'float16')).toEqual([]);
  });

  it('on every bfloat16', () => {
    expect(mismatches(patterns16(bfloat16ToNumber), 'bfloat16')).toEqual([]);
  });

  it('on every float8 of every float8 dtype (printed with float32 digits)', () => {
    const dtypes = NUMERIC_DTYPES.filter(isFloat8Dtype);
    expect(dtypes).toHaveLength(5);
    for (const dtype of dtypes) {
      const values = Array.from({ length: 256 }, (_, code) => float8ToNumber(dtype, code));
      expect(mismatches(values, 'float32')).toEqual([]);
    }
  });

  it('on float32 over every exponent, with random mantissas and signs', () => {
    expect(mismatches(everyExponent(600, 1, 0x807fffff), 'float32')).toEqual([]);
  });

  it('on float32 powers of two, their neighbours, subnormals and the extremes', () => {
    const values = withFractions([0, 1, 2, 3, 0x400000, 0x7ffffd, 0x7ffffe, 0x7fffff]);
    // min subnormal, max subnormal, min normal, max finite
    values.push(float32Of(1), float32Of(0x7fffff), float32Of(0x800000), float32Of(0x7f7fffff));
    expect(mismatches(values, 'float32')).toEqual([]);
  });

  it("on float32 regression values of Ryu's test suite", () => {
    const decimals = [
      '2.4414062e-4',
      '6.7108864e17',
      '1.3421773e18',
      '2.6843546e18',
      '4.7223665e21',
      '8388608.0',
      '1.6777216e7',
      '3.3554436e7',
      '6.7131496e7',
      '1.9310392e-38',
      '2.47e-43',
      '1.993244e-38',
      '4103.9003',
      '5.3399997e9',
      '6.0898e-39',
      '0.0010310042',
      '2.8823261e17',
      '7.038531e-26',
      '9.2234038e17',
      '6.7108872e7',
      '1.0e-44',
      '2.816025e14',
      '9.223372e18',
      '1.5846085e29',
      '1.1811161e19',
      '5.368709e18',
      '4.6143165e18',
      '0.007812537',
      '1.4e-45',
      '1.18697724e20',
      '1.00014165e-36',
      '200.0',
      '3.3554432e7',
      '1.2',
      '1.23',
      '1.234',
      '1.2345',
      '1.23456',
      '1.234567',
      '1.2345678',
      '1.23456735e-36',
      '1.17549435e-38',
      '3.40282347e38',
      '1.0e-4',
      '1.0e6',
    ];
    const values = decimals.map((d) => Math.fround(Number(d)));
    expect(mismatches(values, 'float32')).toEqual([]);
  });

  it('on float32 values with nine-digit forms and on exact ties', () => {
    const nine = words(50000, 9)
      .map((w) => float32Of(w))
      .filter(
        (x) =>
          Number.isFinite(x) &&
          x !== 0 &&
          referenceShortestDigits(Math.abs(x), 'float32').digits.length === 9,
      );
    expect(nine.length).toBeGreaterThan(500);
    // Halves, quarters, ... of small integers: exact decimals ending in 5, ties at shorter lengths.
    const ties: number[] = [];
    for (let j = 1; j <= 30; j++) {
      for (let i = 1; i < 400; i += 2) ties.push(Math.fround(i / 2 ** j), Math.fround(i * 2 ** j));
    }
    expect(mismatches([...nine, ...ties], 'float32')).toEqual([]);
  });

  it('on float32 values next to a midpoint that is a short decimal', () => {
    // Between a and its neighbour up, at ulp 2^q, lies the midpoint 2^(q-1) * odd; when that is
    // also 10^j times a few digits, a rounded candidate can land on it exactly.
    const values: number[] = [];
    for (let q = 1; q <= 104; q++) {
      for (let j = 1; j <= Math.min(q - 1, 12); j++) {
        const base = 2 ** (q - 1) * 5 ** j;
        const low = 2 ** (23 + q);
        for (let odd = Math.ceil(low / base) | 1, n = 0; n < 20; odd += 2, n++) {
          const midpoint = base * odd;
          if (midpoint >= 2 * low) break;
          values.push(Math.fround(midpoint - 2 ** (q - 1)), Math.fround(midpoint + 2 ** (q - 1)));
        }
      }
    }
    expect(values.length).toBeGreaterThan(1000);
    expect(mismatches(values, 'float32')).toEqual([]);
  });

  it("on float64, whose digits are JS's own", () => {
    const pair = new Uint32Array(2);
    const double = new Float64Array(pair.buffer);
    const random = words(40000, 64);
    const values = [5e-324, Number.MAX_VALUE, 1e16, 9999999999999998, 1e-4, 0.0001 - 2 ** -66, -0];
    for (let i = 0; i < random.length; i += 4) {
      pair[0] = random[i] as number;
      pair[1] = random[i + 1] as number;
      values.push(double[0] as number);
      // magnitudes around the positional range, where the layout changes
      const scale = 10 ** (((random[i + 3] as number) % 40) - 20);
      values.push(((random[i + 2] as number) / 2 ** 31 - 1) * scale);
    }
    expect(mismatches(values, 'float64')).toEqual([]);
  });
});

describe('the exact search matches the reference search', () => {
  it('on every float16 and bfloat16, and on float32 powers of two with their neighbours', () => {
    expect(exactMismatches(patterns16(float16ToNumber), 'float16')).toEqual([]);
    expect(exactMismatches(patterns16(bfloat16ToNumber), 'bfloat16')).toEqual([]);
    const values = withFractions([0, 1, 2, 0x400000, 0x7ffffe, 0x7fffff]);
    expect(exactMismatches(values, 'float32')).toEqual([]);
  });

  it('on float32 over every exponent, with random mantissas', () => {
    expect(exactMismatches(everyExponent(40, 2, 0x7fffff), 'float32')).toEqual([]);
  });
});
