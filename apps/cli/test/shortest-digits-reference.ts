import { numberToBfloat16, numberToFloat16 } from '@tensorops/core';
import {
  type Digits,
  digitsValue,
  roundSignificant,
  stripZeros,
} from '../src/format/exact-decimal.js';
import { exponentText, type FloatDtype, splitDigits } from '../src/format/float-text.js';

// The slow, plainly correct search that shortestDigits must match digit for digit: for p = 1, 2,
// ... significant digits, JS's own rounding to p digits (toExponential, with exact ties settled
// in integers), read back through Number() and the dtype's rounding, until one reads back; and
// numpy's str of a scalar laid out from those digits with strings, as reprFloat must print it.

const MAX_SIGNIFICANT: Record<FloatDtype, number> = {
  float16: 5,
  bfloat16: 4,
  float32: 9,
  float64: 17,
};

/** Shortest digits of |x| (finite, non-zero) that round-trip in `dtype`. */
export function referenceShortestDigits(a: number, dtype: FloatDtype): Digits {
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

/** `1.2345e+2` -> {digits: '12345', exp: 2}. */
function parseExponential(s: string): Digits {
  const e = s.indexOf('e');
  const mantissa = s.slice(0, e).replace('.', '');
  return { digits: stripZeros(mantissa), exp: Number(s.slice(e + 1)) };
}

// numpy's str of a scalar turns scientific at 1e16 for float64 (as Python's repr), earlier for
// the narrow types; bfloat16 (not a numpy type) follows its array cutoff.
const SCALAR_CUTOFF: Record<FloatDtype, number> = {
  float16: 1e3,
  bfloat16: 1e2,
  float32: 1e6,
  float64: 1e16,
};

/** numpy's str of a float scalar, from referenceShortestDigits. */
export function referenceReprFloat(x: number, dtype: FloatDtype): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  if (x === 0) return `${sign}0.0`;
  const a = Math.abs(x);
  const d = referenceShortestDigits(a, dtype);
  if (a >= 0.0001 && a < SCALAR_CUTOFF[dtype]) {
    const [int, fraction] = splitDigits(d);
    return `${sign}${int}.${fraction || '0'}`;
  }
  const fraction = d.digits.slice(1);
  return `${sign}${d.digits[0]}${fraction ? `.${fraction}` : ''}e${exponentText(d.exp, 2)}`;
}
