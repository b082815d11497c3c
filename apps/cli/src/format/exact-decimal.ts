// Exact decimal arithmetic on a float's value, in integers (BigInt): the slow path that settles
// what floating-point estimates cannot, and the rounding of fixed digit counts.

/** Decimal digits (no leading or trailing zeros) and the power of ten of the first digit. */
export interface Digits {
  readonly digits: string;
  readonly exp: number;
}

export function stripZeros(digits: string): string {
  let end = digits.length;
  while (end > 1 && digits[end - 1] === '0') end--;
  return digits.slice(0, end);
}

const scratch = new DataView(new ArrayBuffer(8));

/** The exact value of |x| (finite, non-zero) as `units / 10^scale`. */
export function exactDecimal(a: number): { units: bigint; scale: number } {
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
export function dropDigits(units: bigint, k: number): bigint {
  if (k <= 0) return units;
  const unit = 10n ** BigInt(k);
  const q = units / unit;
  const r = units % unit;
  const half = unit / 2n;
  return r > half || (r === half && q % 2n === 1n) ? q + 1n : q;
}

/** The exact value of |x| rounded to `n` significant digits, half to even. */
export function roundSignificant(a: number, n: number): Digits {
  const { units, scale } = exactDecimal(a);
  const all = units.toString();
  const exp = all.length - 1 - scale;
  const kept = dropDigits(units, all.length - n).toString();
  // A carry (9.99 -> 10.0) adds a digit: the value moved up one decade.
  if (kept.length > Math.min(n, all.length))
    return { digits: stripZeros(kept.slice(0, -1)), exp: exp + 1 };
  return { digits: stripZeros(kept), exp };
}
