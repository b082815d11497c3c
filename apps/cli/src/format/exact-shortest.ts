// numpy's Dragon4 digit loop (Burger and Dybvig's free-format algorithm) in exact integers: the
// slow path for the values whose shortest digits floating-point estimates cannot settle.

/** A float's value m * 2^k and the shape of its rounding interval. */
export interface BinaryValue {
  readonly m: number;
  readonly k: number;
  /** At the bottom of a binade: the gap to the neighbour below is half the gap above. */
  readonly lopsided: boolean;
}

/**
 * The shortest digits inside the rounding interval of m * 2^k (ends included when m is even), the
 * nearer of the two candidates when both fit, the even one on a tie: units * 10^scale, where
 * units may end in zeros (a rounding up that carried).
 */
export function exactShortest({ m, k, lopsided }: BinaryValue): { units: number; scale: number } {
  // a = value / denominator; the interval reaches low / denominator below a and high / denominator
  // above it. In units of 2^(k-2): value 4m, high 2, low 2 (1 when lopsided).
  const up = BigInt(Math.max(k - 2, 0));
  let value = BigInt(4 * m) << up;
  let high = 2n << up;
  let low = (lopsided ? 1n : 2n) << up;
  let denominator = 1n << BigInt(Math.max(2 - k, 0));
  // Scaled so that 1 <= value / denominator < 10; e10 is then the power of ten of the first digit.
  let e10 = Math.floor(Math.log10(m) + k * Math.LOG10E * Math.LN2);
  if (e10 >= 0) denominator *= 10n ** BigInt(e10);
  else {
    const factor = 10n ** BigInt(-e10);
    value *= factor;
    high *= factor;
    low *= factor;
  }
  for (; value < denominator; e10--) {
    value *= 10n;
    high *= 10n;
    low *= 10n;
  }
  for (; value >= 10n * denominator; e10++) denominator *= 10n;

  const even = m % 2 === 0;
  let units = 0n;
  // Each turn takes one digit, of the power of ten `exp`; value / denominator becomes what is left
  // of a past the digits so far, in units of that digit.
  for (let exp = e10; ; exp--) {
    const digit = value / denominator;
    value %= denominator;
    units = units * 10n + digit;
    const downFits = even ? value <= low : value < low;
    const upFits = even ? value + high >= denominator : value + high > denominator;
    if (downFits || upFits) {
      const twice = 2n * value;
      // Both fit: the nearer, the even digit on a tie.
      const roundUp =
        downFits && upFits
          ? twice > denominator || (twice === denominator && digit % 2n === 1n)
          : upFits;
      return { units: Number(roundUp ? units + 1n : units), scale: exp };
    }
    value *= 10n;
    high *= 10n;
    low *= 10n;
  }
}
