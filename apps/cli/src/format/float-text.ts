import {
  bfloat16ToNumber,
  type Dtype,
  float16ToNumber,
  numberToBfloat16,
  numberToFloat16,
} from '@tensorops/core';
import { type Digits, dropDigits, exactDecimal, roundSignificant } from './exact-decimal.js';
import { POW10 } from './powers-of-ten.js';
import { shortestDecimal, shortestDigits } from './shortest-digits.js';
import { TextBytes } from './text-bytes.js';

// Decimal text of floats the way numpy prints them (its Dragon4 "unique" mode: the shortest digits
// that read back to the same value in the element's own dtype, the nearer of the two candidates
// on either side of it, ties to even; shortest-digits.ts).
// Display only: values reach here as JS numbers, which hold every float16/bfloat16/float32 exactly.

/** The float dtypes whose elements are formatted as floats. */
export type FloatDtype = 'float16' | 'bfloat16' | 'float32' | 'float64';

export function isFloatDtype(dtype: Dtype): dtype is FloatDtype {
  return dtype === 'float16' || dtype === 'bfloat16' || dtype === 'float32' || dtype === 'float64';
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

/** |x| rounded to at most `maxSignificant` digits (when its shortest form is longer). */
function scientificDigits(a: number, dtype: FloatDtype, maxSignificant: number): Digits {
  const shortest = shortestDigits(a, dtype);
  return shortest.digits.length <= maxSignificant ? shortest : roundSignificant(a, maxSignificant);
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

/** Integer and fraction digits of a positional layout. */
export function splitDigits({ digits, exp }: Digits): [string, string] {
  if (exp < 0) return ['0', '0'.repeat(-exp - 1) + digits];
  if (exp + 1 >= digits.length) return [digits + '0'.repeat(exp + 1 - digits.length), ''];
  return [digits.slice(0, exp + 1), digits.slice(exp + 1)];
}

/** `+05`, `-123`: an exponent's sign and at least `minDigits` digits. */
export function exponentText(exp: number, minDigits: number): string {
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
  writeReprFloat(scratch, x, dtype);
  return scratch.takeAscii();
}

const scratch = new TextBytes(64);

const MINUS = 0x2d;
const POINT = 0x2e;

/** reprFloat's text, written into `out`. */
export function writeReprFloat(out: TextBytes, x: number, dtype: FloatDtype): void {
  if (!Number.isFinite(x)) {
    out.ascii(Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf');
    return;
  }
  if (isNegative(x)) out.byte(MINUS);
  const a = Math.abs(x);
  const positional = a >= 0.0001 && a < SCALAR_CUTOFF[dtype];
  if (a === 0) out.ascii('0.0');
  else if (dtype === 'float64') out.ascii(reprFloat64(a, positional));
  else {
    const { units, scale } = shortestDecimal(a, dtype);
    if (positional) writePositional(out, units, scale);
    else writeScientific(out, units, scale);
  }
}

/** Python's repr of a positive float64 from JS's own (the same shortest digits). */
function reprFloat64(a: number, positional: boolean): string {
  if (positional) {
    // JS writes 1e-4 <= a < 1e16 positionally too, without Python's `.0` on integers.
    const text = String(a);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa, exp] = a.toExponential().split('e') as [string, string];
  return `${mantissa}e${exp[0]}${exp.slice(1).padStart(2, '0')}`;
}

/** units * 10^scale as `123.45`, `0.00012`, `1200.0`. */
function writePositional(out: TextBytes, units: number, scale: number): void {
  if (scale >= 0) {
    out.digits(units * (POW10[scale] as number));
    out.ascii('.0');
    return;
  }
  const unit = POW10[-scale] as number;
  const whole = Math.floor(units / unit);
  out.digits(whole);
  out.byte(POINT);
  out.digits(units - whole * unit, -scale);
}

/** units * 10^scale as `1.2345e+07`, `1e-05`. */
function writeScientific(out: TextBytes, units: number, scale: number): void {
  let last = 0; // the power of ten of units' first digit
  while (units >= (POW10[last + 1] as number)) last++;
  const lead = POW10[last] as number;
  const first = Math.floor(units / lead);
  out.digits(first);
  if (last > 0) {
    out.byte(POINT);
    out.digits(units - first * lead, last);
  }
  const exp = scale + last;
  out.ascii(exp < 0 ? 'e-' : 'e+');
  out.digits(Math.abs(exp), 2);
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
