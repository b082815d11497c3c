import { numberToBfloat16 } from '@tensorops/core';
import { type Digits, stripZeros } from './exact-decimal.js';
import { type BinaryValue, exactShortest } from './exact-shortest.js';
import type { FloatDtype } from './float-text.js';
import { POW10, powers } from './powers-of-ten.js';

// The shortest decimal digits of a float in its own dtype, as numpy's Dragon4 unique mode finds
// them: the fewest significant digits p for which a p-digit number lies inside the value's
// rounding interval (the numbers that read back as it; its ends count when the mantissa is
// even), and of the two p-digit numbers next to the value the nearer one inside (the even one
// on a tie). At a power of two the interval reaches half as far below as above, so that number
// can be the one above even where the value rounded to p digits lies below. float64 takes JS's
// own shortest form.
//
// The narrow dtypes (float16, bfloat16, float32; float8 prints as float32) hold values whose
// scaled forms a * 10^n fit float64 with room to spare, so each candidate is judged in float64
// from a, its rounding interval and a bound on the arithmetic's error: inside the interval, or
// outside it, by more than that bound. Exact ties and candidates exactly on an interval end are
// recognised in integers; anything else within the bound goes to the exact search (BigInt).

interface NarrowFormat {
  readonly mantissaBits: number;
  /** The exponent bias: a normal value is 1.m * 2^(field - bias). */
  readonly bias: number;
  /** Digits that always read back (the full digit count). */
  readonly maxDigits: number;
  /** The dtype's bits of a value it holds. */
  readonly bitsOf: (a: number) => number;
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
  },
  bfloat16: {
    mantissaBits: 7,
    bias: 127,
    maxDigits: 4,
    bitsOf: numberToBfloat16,
  },
  float32: {
    mantissaBits: 23,
    bias: 127,
    maxDigits: 9,
    bitsOf: (a) => {
      f32[0] = a;
      return u32[0] as number;
    },
  },
};

/** Powers of five, for the exact comparisons; past 5^22 they exceed every integer compared. */
const POW5 = powers(5, 64);

/**
 * Bound on the relative error of a scaled value or reach (at most six roundings: three scalings by
 * powers of ten, then divisions) and of a candidate's distance from a, with a wide margin.
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
  let { units, scale } = shortestOrExact(a, NARROW[dtype]);
  while (units % 10 === 0) {
    units /= 10;
    scale++;
  }
  return { units, scale };
}

/** shortestDecimal's digits, which may end in zeros. */
function shortestOrExact(a: number, format: NarrowFormat): { units: number; scale: number } {
  const { maxDigits } = format;
  const binary = binaryOf(a, format);
  const { m, k, lopsided } = binary;
  const ends = m % 2 === 0; // whether the interval's ends read back as a

  // In units of 10^(e10 - maxDigits + 1): a has maxDigits integer digits, and the interval
  // reaches half an ulp, a / 2m, above a (half that below when lopsided).
  let e10 = Math.floor(Math.log10(a));
  let full = scaleByPow10(a, maxDigits - 1 - e10);
  if (full >= (POW10[maxDigits] as number)) full = scaleByPow10(a, maxDigits - 1 - ++e10);
  else if (full < (POW10[maxDigits - 1] as number)) full = scaleByPow10(a, maxDigits - 1 - --e10);
  const above = full / (2 * m);
  const below = lopsided ? above / 2 : above;

  // If a p-digit number next to a is inside the interval, so is the (p+1)-digit number next to a
  // on the same side, which lies between it and a: the digit counts with a candidate are all
  // those from the shortest one up. So the search starts at a count that surely has one (the
  // value rounded to it is within half a unit of its last digit, which fits inside the interval
  // on either side) and goes down until a count has none.
  const halfUnitFits = (p: number): boolean =>
    0.5 < below / (POW10[maxDigits - p] as number) - (POW10[p] as number) * ARITHMETIC_SLACK;
  let p = maxDigits;
  while (p > 1 && halfUnitFits(p - 1)) p--;
  let found: { units: number; scale: number } | undefined;
  for (; p >= 1; p--) {
    const unit = POW10[maxDigits - p] as number;
    const scaled = full / unit; // a * 10^(p - 1 - e10), below 10^p
    const slack = (POW10[p] as number) * ARITHMETIC_SLACK;
    const candidateScale = e10 - p + 1; // a candidate is digits * 10^candidateScale
    const floor = Math.floor(scaled);
    const rest = scaled - floor;

    // Whether a candidate `distance` units (of its last digit) from a reads back, on the side
    // where the interval reaches `reach` units and ends at odd * 2^j; undefined when float64
    // cannot tell and the end is not exactly on it.
    const fits = (distance: number, reach: number, digits: number, odd: number, j: number) => {
      if (distance < reach - slack) return true;
      if (distance > reach + slack) return false;
      return equalsDyadic(digits, candidateScale, odd, j) ? ends : undefined;
    };
    const downFits = lopsided
      ? fits(rest, below / unit, floor, 4 * m - 1, k - 2)
      : fits(rest, below / unit, floor, 2 * m - 1, k - 1);
    const upFits = fits(1 - rest, above / unit, floor + 1, 2 * m + 1, k - 1);
    if (downFits === undefined || upFits === undefined) return exactShortest(binary);
    if (!downFits && !upFits) break;

    let roundUp = upFits;
    if (downFits && upFits) {
      // Both read back: the nearer one, the even one on an exact tie.
      if (Math.abs(rest - 0.5) > slack) roundUp = rest > 0.5;
      else if (equalsDyadic(m, -candidateScale, 2 * floor + 1, -1 - k)) roundUp = floor % 2 === 1;
      else return exactShortest(binary);
    }
    found = { units: roundUp ? floor + 1 : floor, scale: candidateScale };
  }
  // The first count tried had no candidate after all (its fit was decided within the slack): no
  // shorter one can be trusted to be the shortest.
  return found ?? exactShortest(binary);
}

/** a (finite, positive, held by `dtype`) as m * 2^k, with the shape of its rounding interval. */
export function binaryValue(a: number, dtype: NarrowDtype): BinaryValue {
  return binaryOf(a, NARROW[dtype]);
}

function binaryOf(a: number, { mantissaBits, bias, bitsOf }: NarrowFormat): BinaryValue {
  // The numbers that read back as a lie between its midpoints with its neighbours,
  // (2m + 1) * 2^(k-1) above and (2m - 1) * 2^(k-1) below, or (4m - 1) * 2^(k-2) at the bottom of
  // a binade (lopsided: the ulp below is half the ulp above). A number on a midpoint reads back
  // (rounding ties to even) as a when m is even.
  const bits = bitsOf(a);
  const field = bits >>> mantissaBits;
  const fraction = bits & ((1 << mantissaBits) - 1);
  return {
    m: field === 0 ? fraction : fraction | (1 << mantissaBits),
    k: Math.max(field, 1) - bias - mantissaBits,
    lopsided: fraction === 0 && field > 1,
  };
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

/** `1.2345e+2` -> {digits: '12345', exp: 2}. */
function parseExponential(s: string): Digits {
  const e = s.indexOf('e');
  const mantissa = s.slice(0, e).replace('.', '');
  return { digits: stripZeros(mantissa), exp: Number(s.slice(e + 1)) };
}
