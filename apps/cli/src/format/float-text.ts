import {
  bfloat16ToNumber,
  type Dtype,
  float16ToNumber,
  numberToBfloat16,
  numberToFloat16,
} from '@tensorops/core';

// Decimal text of floats the way numpy prints them (its Dragon4 "unique" mode: the shortest digits
// that read back to the same value in the element's own dtype, rounded exactly, ties to even).
// Display only: values reach here as JS numbers, which hold every float16/bfloat16/float32 exactly.

/** The float dtypes whose elements are formatted as floats. */
export type FloatDtype = 'float16' | 'bfloat16' | 'float32' | 'float64';

export function isFloatDtype(dtype: Dtype): dtype is FloatDtype {
  return dtype === 'float16' || dtype === 'bfloat16' || dtype === 'float32' || dtype === 'float64';
}

/** Decimal digits (no leading or trailing zeros) and the power of ten of the first digit. */
interface Digits {
  readonly digits: string;
  readonly exp: number;
}

const MAX_SIGNIFICANT: Record<FloatDtype, number> = {
  float16: 5,
  bfloat16: 4,
  float32: 9,
  float64: 17,
};

/** Shortest digits of |x| (finite, non-zero) that round-trip in `dtype`. */
function shortestDigits(a: number, dtype: FloatDtype): Digits {
  if (dtype === 'float64') return parseExponential(a.toExponential());
  const same = roundTrips(dtype);
  for (let p = 1; p < MAX_SIGNIFICANT[dtype]; p++) {
    const candidate = roundedDigits(a, p);
    if (same(digitsValue(candidate), a)) return candidate;
  }
  return roundedDigits(a, MAX_SIGNIFICANT[dtype]);
}

/** |x| rounded to `p` significant digits, half to even (toExponential rounds exact ties up). */
function roundedDigits(a: number, p: number): Digits {
  const longer = a.toExponential(p);
  // A tie needs the exact value to end in 5 one digit further; only then is the exact path needed.
  if (longer[longer.indexOf('e') - 1] === '5' && Number(longer) === a)
    return roundSignificant(a, p);
  return parseExponential(a.toExponential(p - 1));
}

function digitsValue({ digits, exp }: Digits): number {
  return Number(`${digits}e${exp - digits.length + 1}`);
}

function roundTrips(dtype: FloatDtype): (candidate: number, a: number) => boolean {
  switch (dtype) {
    case 'float16':
      return (c, a) => numberToFloat16(c) === numberToFloat16(a);
    case 'bfloat16':
      return (c, a) => numberToBfloat16(c) === numberToBfloat16(a);
    default:
      return (c, a) => Math.fround(c) === a;
  }
}

function roundTo(dtype: FloatDtype): (x: number) => number {
  switch (dtype) {
    case 'float16':
      return (x) => float16ToNumber(numberToFloat16(x));
    case 'bfloat16':
      return (x) => bfloat16ToNumber(numberToBfloat16(x));
    case 'float32':
      return Math.fround;
    default:
      return (x) => x;
  }
}

/** `1.2345e+2` -> {digits: '12345', exp: 2}. */
function parseExponential(s: string): Digits {
  const e = s.indexOf('e');
  const mantissa = s.slice(0, e).replace('.', '');
  return { digits: stripZeros(mantissa), exp: Number(s.slice(e + 1)) };
}

function stripZeros(digits: string): string {
  let end = digits.length;
  while (end > 1 && digits[end - 1] === '0') end--;
  return digits.slice(0, end);
}

const scratch = new DataView(new ArrayBuffer(8));

/** The exact value of |x| (finite, non-zero) as `units / 10^scale`. */
function exactDecimal(a: number): { units: bigint; scale: number } {
  scratch.setFloat64(0, a);
  const hi = scratch.getUint32(0);
  const lo = scratch.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    e = biased - 1075;
  }
  if (e >= 0) return { units: mantissa << BigInt(e), scale: 0 };
  // m / 2^k = m * 5^k / 10^k: exact, so rounding below can be exact too.
  return { units: mantissa * 5n ** BigInt(-e), scale: -e };
}

/** Drops the last `k` decimal digits of `units`, rounding half to even (Dragon4's rule). */
function dropDigits(units: bigint, k: number): bigint {
  if (k <= 0) return units;
  const unit = 10n ** BigInt(k);
  const q = units / unit;
  const r = units % unit;
  const half = unit / 2n;
  return r > half || (r === half && q % 2n === 1n) ? q + 1n : q;
}

/** |x| rounded to at most `maxSignificant` digits (when its shortest form is longer). */
function scientificDigits(a: number, dtype: FloatDtype, maxSignificant: number): Digits {
  const shortest = shortestDigits(a, dtype);
  return shortest.digits.length <= maxSignificant ? shortest : roundSignificant(a, maxSignificant);
}

/** The exact value of |x| rounded to `n` significant digits, half to even. */
function roundSignificant(a: number, n: number): Digits {
  const { units, scale } = exactDecimal(a);
  const all = units.toString();
  const exp = all.length - 1 - scale;
  const kept = dropDigits(units, all.length - n).toString();
  // A carry (9.99 -> 10.0) adds a digit: the value moved up one decade.
  if (kept.length > Math.min(n, all.length))
    return { digits: stripZeros(kept.slice(0, -1)), exp: exp + 1 };
  return { digits: stripZeros(kept), exp };
}

/** Integer and fraction digits of |x| with at most `maxFraction` fraction digits. */
function positionalParts(a: number, dtype: FloatDtype, maxFraction: number): [string, string] {
  const shortest = shortestDigits(a, dtype);
  if (shortest.digits.length - 1 - shortest.exp <= maxFraction) return splitDigits(shortest);
  const { units, scale } = exactDecimal(a);
  const kept = dropDigits(units, scale - maxFraction)
    .toString()
    .padStart(maxFraction + 1, '0');
  const cut = kept.length - maxFraction;
  const fraction = kept.slice(cut).replace(/0+$/, '');
  return [kept.slice(0, cut), fraction];
}

function splitDigits({ digits, exp }: Digits): [string, string] {
  if (exp < 0) return ['0', '0'.repeat(-exp - 1) + digits];
  if (exp + 1 >= digits.length) return [digits + '0'.repeat(exp + 1 - digits.length), ''];
  return [digits.slice(0, exp + 1), digits.slice(exp + 1)];
}

function exponentText(exp: number, minDigits: number): string {
  return `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(minDigits, '0')}`;
}

const isNegative = (x: number): boolean => x < 0 || Object.is(x, -0);

// numpy's str of a scalar turns scientific at 1e16 for float64 (as Python's repr), earlier for
// the narrow types; bfloat16 (not a numpy type) follows its array cutoff.
const SCALAR_CUTOFF: Record<FloatDtype, number> = {
  float16: 1e3,
  bfloat16: 1e2,
  float32: 1e6,
  float64: 1e16,
};

/**
 * numpy's str of a float scalar (Python's repr for float64): shortest round-trip digits in the
 * dtype, positional for 1e-4 <= |x| < cutoff, otherwise `1.5e-05`.
 */
export function reprFloat(x: number, dtype: FloatDtype): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const sign = isNegative(x) ? '-' : '';
  if (x === 0) return `${sign}0.0`;
  const a = Math.abs(x);
  const d = shortestDigits(a, dtype);
  if (a >= 0.0001 && a < SCALAR_CUTOFF[dtype]) {
    const [int, fraction] = splitDigits(d);
    return `${sign}${int}.${fraction || '0'}`;
  }
  const fraction = d.digits.slice(1);
  return `${sign}${d.digits[0]}${fraction ? `.${fraction}` : ''}e${exponentText(d.exp, 2)}`;
}

/** C's `%.{p}g` (as Python prints it), with `.0` added to integral results: 3.5833333, 2.0, 1e-05. */
export function formatG(x: number, precision = 8): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return isNegative(x) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const d = roundSignificant(Math.abs(x), precision);
  if (d.exp >= -4 && d.exp < precision) {
    const [int, fraction] = splitDigits(d);
    return `${sign}${int}.${fraction || '0'}`;
  }
  const fraction = d.digits.slice(1);
  return `${sign}${d.digits[0]}${fraction ? `.${fraction}` : ''}e${exponentText(d.exp, 2)}`;
}

/** numpy's default print precision: at most 8 fraction digits (positional or scientific). */
const PRECISION = 8;

// numpy switches an array to scientific notation at 10**min(8, finfo(dtype).precision).
const EXP_CUTOFF: Record<FloatDtype, number> = {
  float16: 1e3,
  bfloat16: 1e2,
  float32: 1e6,
  float64: 1e8,
};

/**
 * numpy's FloatingFormat (floatmode 'maxprec', precision 8): one formatter for a set of values
 * that pads them to a common width with their decimal points aligned, and picks scientific
 * notation for the whole set when the magnitudes call for it. `sign: '+'` is what the imaginary
 * parts of complex numbers use.
 */
export function floatFormatter(
  values: readonly number[],
  dtype: FloatDtype,
  sign: '-' | '+' = '-',
): (x: number) => string {
  const plus = sign === '+';
  let maxAbs = 0;
  let minAbs = Number.POSITIVE_INFINITY;
  let finiteCount = 0;
  let negInf = false;
  for (const x of values) {
    if (Number.isFinite(x)) {
      finiteCount++;
      const a = Math.abs(x);
      if (a !== 0) {
        if (a > maxAbs) maxAbs = a;
        if (a < minAbs) minAbs = a;
      }
    } else if (x === Number.NEGATIVE_INFINITY) negInf = true;
  }
  // numpy compares in the array's own dtype: float32(1e-4) is not below float32(0.0001).
  const inDtype = roundTo(dtype);
  const exponential =
    maxAbs > 0 &&
    (maxAbs >= EXP_CUTOFF[dtype] || minAbs < inDtype(0.0001) || inDtype(maxAbs / minAbs) > 1000);
  const signOf = (x: number): string => (isNegative(x) ? '-' : plus ? '+' : '');

  let padLeft = 0;
  let padRight = 0;
  let expSize = 0;
  if (exponential) {
    let precision = 0;
    for (const x of values) {
      if (!Number.isFinite(x)) continue;
      const d =
        x === 0 ? { digits: '0', exp: 0 } : scientificDigits(Math.abs(x), dtype, PRECISION + 1);
      precision = Math.max(precision, d.digits.length - 1);
      padLeft = Math.max(padLeft, signOf(x).length + 1);
      expSize = Math.max(expSize, String(Math.abs(d.exp)).length, 2);
    }
    padRight = expSize + 2 + precision;
    if (finiteCount > 0) {
      // numpy prints every value with the same number of digits, and the digits past a value's
      // shortest form are its exact digits (Dragon4 min_digits), not zeros.
      const format = (x: number): string => {
        const d = x === 0 ? { digits: '0', exp: 0 } : roundSignificant(Math.abs(x), precision + 1);
        const int = signOf(x) + d.digits[0];
        const fraction = d.digits.slice(1).padEnd(precision, '0');
        return `${int.padStart(padLeft)}.${fraction}e${exponentText(d.exp, expSize)}`;
      };
      return withNonFinite(format, values, plus, negInf, padLeft, padRight);
    }
  } else {
    for (const x of values) {
      if (!Number.isFinite(x)) continue;
      const [int, fraction] = x === 0 ? ['0', ''] : positionalParts(Math.abs(x), dtype, PRECISION);
      padLeft = Math.max(padLeft, signOf(x).length + int.length);
      padRight = Math.max(padRight, fraction.length);
    }
    if (finiteCount > 0) {
      const format = (x: number): string => {
        const [int, fraction] =
          x === 0 ? ['0', ''] : positionalParts(Math.abs(x), dtype, PRECISION);
        return `${(signOf(x) + int).padStart(padLeft)}.${fraction.padEnd(padRight)}`;
      };
      return withNonFinite(format, values, plus, negInf, padLeft, padRight);
    }
  }
  return withNonFinite(() => '', values, plus, negInf, 0, 0);
}

function withNonFinite(
  format: (x: number) => string,
  values: readonly number[],
  plus: boolean,
  negInf: boolean,
  padLeft: number,
  padRight: number,
): (x: number) => string {
  let left = padLeft;
  if (values.some((x) => !Number.isFinite(x))) {
    // numpy widens the integer part so that 'nan', 'inf' and '-inf' fit the common width.
    const offset = padRight + 1;
    left = Math.max(left, 3 - offset, 3 + (plus || negInf ? 1 : 0) - offset);
  }
  const width = left + padRight + 1;
  const leftPad = left - padLeft;
  return (x) => {
    if (Number.isNaN(x)) return `${plus ? '+' : ''}nan`.padStart(width);
    if (!Number.isFinite(x)) return `${x < 0 ? '-' : plus ? '+' : ''}inf`.padStart(width);
    return ' '.repeat(leftPad) + format(x);
  };
}
