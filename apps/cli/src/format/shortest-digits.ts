import { numberToBfloat16, numberToFloat16 } from '@tensorops/core';
import { type Digits, digitsValue, roundSignificant, stripZeros } from './exact-decimal.js';
import type { FloatDtype } from './float-text.js';
import { POW10, powers } from './powers-of-ten.js';

// The shortest decimal digits of a float that read back to it in its own dtype: of p = 1, 2, ...
// significant digits, the fewest for which the value rounded to p digits (exactly, half to even)
// reads back (decimal -> float64 -> dtype, as Number() and the dtype's rounding do); failing
// that, the value rounded to the dtype's full digit count. float64 is JS's own shortest form.
//
// The narrow dtypes (float16, bfloat16, float32; float8 prints as float32) hold values whose
// scaled forms a * 10^n fit float64 with room to spare, so each candidate is judged in float64
// from a, its rounding interval and a bound on the arithmetic's error: inside the interval, or
// outside it, by more than that bound. Exact ties and candidates exactly on a midpoint are
// recognised in integers; anything else within the bound goes to the exact search (BigInt).

interface NarrowFormat {
  readonly mantissaBits: number;
  /** The exponent bias: a normal value is 1.m * 2^(field - bias). */
  readonly bias: number;
  /** Digits that always read back (the full digit count). */
  readonly maxDigits: number;
  /** The dtype's bits of a value it holds. */
  readonly bitsOf: (a: number) => number;
  /** Whether a number read from decimal text becomes the value `a`. */
  readonly readsBackAs: (candidate: number, a: number) => boolean;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export type NarrowDtype = Exclude<FloatDtype, 'float64'>;

const NARROW: Record<NarrowDtype, NarrowFormat> = {
  float16: {
    mantissaBits: 10,
    bias: 15,
    maxDigits: 5,
    bitsOf: (a) => {
      // float32 holds a exactly: its exponent rebiased (15 for 127) and its top 10 mantissa bits;
      // below float16's normal range, a counts 2^-24 steps.
      f32[0] = a;
      const field = ((u32[0] as number) >>> 23) - 112;
      return field > 0 ? (field << 10) | (((u32[0] as number) >>> 13) & 0x3ff) : a * 2 ** 24;
    },
    readsBackAs: (c, a) => numberToFloat16(c) === numberToFloat16(a),
  },
  bfloat16: {
    mantissaBits: 7,
    bias: 127,
    maxDigits: 4,
    bitsOf: numberToBfloat16,
    // Read back through float32, a second rounding: it could only change the decision on a
    // candidate within 2^-24 of a midpoint and not on it, and the tests, which go through every
    // bfloat16 value, show that it never does.
    readsBackAs: (c, a) => numberToBfloat16(c) === numberToBfloat16(a),
  },
  float32: {
    mantissaBits: 23,
    bias: 127,
    maxDigits: 9,
    bitsOf: (a) => {
      f32[0] = a;
      return u32[0] as number;
    },
    readsBackAs: (c, a) => Math.fround(c) === a,
  },
};

/** Powers of five, for the exact comparisons; past 5^22 they exceed every integer compared. */
const POW5 = powers(5, 64);

/**
 * Bound on the relative error of a scaled value or reach (at most six roundings: three scalings by
 * powers of ten, then divisions) and of reading the candidate back into float64, with a wide
 * margin.
 */
const ARITHMETIC_SLACK = 2 ** -48;

/** x * 10^n, each step one correctly rounded operation with an exact power of ten. */
function scaleByPow10(x: number, n: number): number {
  let k = n;
  let y = x;
  if (k >= 0) {
    for (; k > 22; k -= 22) y *= 1e22;
    return y * (POW10[k] as number);
  }
  for (; k < -22; k += 22) y /= 1e22;
  return y / (POW10[-k] as number);
}

/** Shortest digits of |x| (finite, non-zero) that round-trip in `dtype`. */
export function shortestDigits(a: number, dtype: FloatDtype): Digits {
  if (dtype === 'float64') return parseExponential(a.toExponential());
  const { units, scale } = shortestDecimal(a, dtype);
  const digits = String(units);
  return { digits, exp: scale + digits.length - 1 };
}

/** A decimal number units * 10^scale, units a positive integer that does not end in 0. */
export interface Decimal {
  readonly units: number;
  readonly scale: number;
}

/** The shortest digits of a (finite, positive, held by `dtype`) that read back as a. */
export function shortestDecimal(a: number, dtype: NarrowDtype): Decimal {
  const format = NARROW[dtype];
  const { mantissaBits, bias, maxDigits } = format;

  // a = m * 2^k. The numbers that read back as a lie between its midpoints with its neighbours,
  // (2m + 1) * 2^(k-1) above and (2m - 1) * 2^(k-1) below, or (4m - 1) * 2^(k-2) at the bottom of
  // a binade (lopsided: the ulp below is half the ulp above). A number on a midpoint reads back
  // (rounding ties to even) as a when m is even.
  const bits = format.bitsOf(a);
  const field = bits >>> mantissaBits;
  const fraction = bits & ((1 << mantissaBits) - 1);
  const k = Math.max(field, 1) - bias - mantissaBits;
  const m = field === 0 ? fraction : fraction | (1 << mantissaBits);
  const lopsided = fraction === 0 && field > 1;

  // In units of 10^(e10 - maxDigits + 1): a has maxDigits integer digits, and the interval
  // reaches half an ulp, a / 2m, above a (half that below when lopsided).
  let e10 = Math.floor(Math.log10(a));
  let full = scaleByPow10(a, maxDigits - 1 - e10);
  if (full >= (POW10[maxDigits] as number)) full = scaleByPow10(a, maxDigits - 1 - ++e10);
  else if (full < (POW10[maxDigits - 1] as number)) full = scaleByPow10(a, maxDigits - 1 - --e10);
  const above = full / (2 * m);
  const below = lopsided ? above / 2 : above;

  // Rounded to p digits, a moves at most half a unit of the last digit kept. The search starts at
  // the fewest digits where that half unit fits inside the interval and goes down. Rounding to p
  // digits is never farther from a than rounding to p - 1, so in a symmetric interval the first
  // count that misses ends it; a lopsided one is searched down to 1 digit.
  const halfUnitFits = (p: number): boolean =>
    0.5 < below / (POW10[maxDigits - p] as number) - (POW10[p] as number) * ARITHMETIC_SLACK;
  let p = maxDigits;
  while (p > 1 && halfUnitFits(p - 1)) p--;
  let units = 0;
  let scale = 0;
  for (; p >= 1; p--) {
    const unit = POW10[maxDigits - p] as number;
    const scaled = full / unit; // a * 10^(p - 1 - e10), below 10^p
    const slack = (POW10[p] as number) * ARITHMETIC_SLACK;
    const candidateScale = e10 - p + 1; // the candidate is rounded * 10^candidateScale
    const floor = Math.floor(scaled);
    const rest = scaled - floor;
    let rounded: number;
    if (Math.abs(rest - 0.5) > slack) rounded = rest < 0.5 ? floor : floor + 1;
    else if (equalsDyadic(m, -candidateScale, 2 * floor + 1, -1 - k))
      rounded = floor % 2 === 0 ? floor : floor + 1; // an exact tie: to even
    else return exactShortest(a, format);

    // The candidate's distance from a, and how far the interval reaches on its side, in units
    // of the candidate's last digit.
    const offset = rounded - scaled;
    const distance = Math.abs(offset);
    const reach = (offset >= 0 ? above : below) / unit;
    // The full digit count is taken as it is, as the search's last resort.
    let inside = p === maxDigits || distance < reach - slack;
    if (!inside && distance <= reach + slack) {
      const onMidpoint =
        offset >= 0
          ? equalsDyadic(rounded, candidateScale, 2 * m + 1, k - 1)
          : lopsided
            ? equalsDyadic(rounded, candidateScale, 4 * m - 1, k - 2)
            : equalsDyadic(rounded, candidateScale, 2 * m - 1, k - 1);
      if (!onMidpoint) return exactShortest(a, format);
      inside = m % 2 === 0;
    }
    if (inside) {
      units = rounded;
      scale = candidateScale;
    } else if (!lopsided) break;
  }
  // The first candidate missed after all (its fit was decided within the slack): no shorter one
  // can be trusted to be the shortest.
  if (units === 0) return exactShortest(a, format);
  while (units % 10 === 0) {
    units /= 10;
    scale++;
  }
  return { units, scale };
}

/**
 * Whether d * 10^q = odd * 2^j exactly (d a positive integer below 2^31, odd an odd one below
 * 2^53). With d = d' * 2^s (d' odd) the left side is d' * 5^q * 2^(s+q): equal when s + q = j and
 * d' * 5^q = odd (for q < 0: d' = odd * 5^-q). A product past 2^53 is rounded but then exceeds
 * the other side, so the float64 comparison stays exact.
 */
function equalsDyadic(d: number, q: number, odd: number, j: number): boolean {
  const s = 31 - Math.clz32(d & -d);
  if (s + q !== j || Math.abs(q) >= POW5.length) return false;
  const oddPart = d >>> s;
  return q >= 0 ? oddPart * (POW5[q] as number) === odd : oddPart === odd * (POW5[-q] as number);
}

/** The search step by step from 1 digit on, each step decided exactly. */
function exactShortest(a: number, format: NarrowFormat): Decimal {
  let digits = roundSignificant(a, format.maxDigits);
  for (let p = 1; p < format.maxDigits; p++) {
    const candidate = roundSignificant(a, p);
    if (format.readsBackAs(digitsValue(candidate), a)) {
      digits = candidate;
      break;
    }
  }
  return { units: Number(digits.digits), scale: digits.exp - digits.digits.length + 1 };
}

/** `1.2345e+2` -> {digits: '12345', exp: 2}. */
function parseExponential(s: string): Digits {
  const e = s.indexOf('e');
  const mantissa = s.slice(0, e).replace('.', '');
  return { digits: stripZeros(mantissa), exp: Number(s.slice(e + 1)) };
}
