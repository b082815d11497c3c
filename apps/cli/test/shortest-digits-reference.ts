import { type Digits, stripZeros } from '../src/format/exact-decimal.js';
import { exponentText, type FloatDtype, splitDigits } from '../src/format/float-text.js';

// The slow, plainly correct search that shortestDigits must match digit for digit, in exact
// integer arithmetic: numpy's Dragon4 unique mode stated as a search. For p = 1, 2, ... significant
// digits, the two p-digit numbers next to the value (below it and above it) are tried against the
// value's rounding interval in its own dtype; the first p with one inside gives the digits (the
// closer of the two when both are, the even one on a tie). And numpy's str of a scalar laid out
// from those digits with strings, as reprFloat must print it.

interface BinaryFormat {
  readonly mantissaBits: number;
  /** The exponent bias: a normal value is 1.m * 2^(field - bias). */
  readonly bias: number;
}

const FORMATS: Record<Exclude<FloatDtype, 'float64'>, BinaryFormat> = {
  float16: { mantissaBits: 10, bias: 15 },
  bfloat16: { mantissaBits: 7, bias: 127 },
  float32: { mantissaBits: 23, bias: 127 },
};

/** Shortest digits of |x| (finite, non-zero) that round-trip in `dtype`. */
export function referenceShortestDigits(a: number, dtype: FloatDtype): Digits {
  if (dtype === 'float64') return parseExponential(a.toExponential());
  const { mantissaBits, bias } = FORMATS[dtype];

  // a = m * 2^k, m below 2^(mantissaBits + 1); below the normal range k stays at its least.
  let top = Math.floor(Math.log2(a));
  while (2 ** top > a) top--;
  while (2 ** (top + 1) <= a) top++;
  const k = Math.max(top, 1 - bias) - mantissaBits;
  const m = a / 2 ** k;
  if (!Number.isInteger(m) || m >= 2 ** (mantissaBits + 1)) throw new Error(`${a} is no ${dtype}`);

  // In units of 2^(k-2): a is 4m; the numbers that read back as a lie between the midpoints
  // with its neighbours, 4m + 2 above and 4m - 2 below (4m - 1 at the bottom of a binade, where
  // the gap below is half the gap above). A midpoint itself reads back (ties to even) when m is
  // even. All three are written exactly as integers times 10^-places (2^-j = 5^j * 10^-j).
  const lopsided = m === 2 ** mantissaBits && k > 1 - bias - mantissaBits;
  const places = Math.max(2 - k, 0);
  const quarterUlp = k >= 2 ? 2n ** BigInt(k - 2) : 5n ** BigInt(places);
  const value = BigInt(4 * m) * quarterUlp;
  const lowEnd = value - (lopsided ? 1n : 2n) * quarterUlp;
  const highEnd = value + 2n * quarterUlp;
  const even = m % 2 === 0;
  const inside = (c: bigint): boolean =>
    even ? lowEnd <= c && c <= highEnd : lowEnd < c && c < highEnd;

  // p significant digits keep the first p of value's digits: the candidates are value cut to
  // them and that plus one unit of the last digit kept. At all its digits, value is one itself.
  const length = value.toString().length;
  for (let p = 1; ; p++) {
    const unit = 10n ** BigInt(Math.max(length - p, 0));
    const below = value - (value % unit);
    const above = below + unit;
    if (!inside(below) && !inside(above)) continue;
    // Both inside: the nearer, the even one (in units of the last digit) when a is halfway.
    const fromBelow = value - below;
    const fromAbove = above - value;
    const pick = !inside(above)
      ? below
      : !inside(below)
        ? above
        : fromBelow < fromAbove || (fromBelow === fromAbove && (below / unit) % 2n === 0n)
          ? below
          : above;
    const digits = (pick / unit).toString();
    const scale = Math.max(length - p, 0) - places; // pick is digits * 10^scale
    return { digits: stripZeros(digits), exp: scale + digits.length - 1 };
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
