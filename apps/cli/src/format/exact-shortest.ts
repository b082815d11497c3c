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
  // value / scale is the value; low / scale and high / scale how far the interval reaches below
  // and above it. In units of 2^(k-2): value 4m, high 2, low 2 (1 when lopsided).
  const up = BigInt(Math.max(k - 2, 0));
  let value = BigInt(4 * m) << up;
  let high = 2n << up;
  let low = (lopsided ? 1n : 2n) << up;
  let scale = 1n << BigInt(Math.max(2 - k, 0));
  // Scaled so that 1 <= value / scale < 10; e10 is then the power of ten of the first digit.
  let e10 = Math.floor(Math.log10(m) + k * Math.LOG10E * Math.LN2);
  if (e10 >= 0) scale *= 10n ** BigInt(e10);
  else {
    const factor = 10n ** BigInt(-e10);
    value *= factor;
    high *= factor;
    low *= factor;
  }
  for (; value < scale; e10--) {
    value *= 10n;
    high *= 10n;
    low *= 10n;
  }
  for (; value >= 10n * scale; e10++) scale *= 10n;

  const even = m % 2 === 0;
  let units = 0n;
  // Each turn takes one digit; value becomes the rest of a below the digits so far.
  for (let exp = e10; ; exp--) {
    const digit = value / scale;
    value %= scale;
    units = units * 10n + digit;
    const downFits = even ? value <= low : value < low;
    const upFits = even ? value + high >= scale : value + high > scale;
    if (downFits || upFits) {
      const twice = 2n * value;
      const roundUp =
        downFits && upFits ? twice > scale || (twice === scale && digit % 2n === 1n) : upFits;
      return { units: Number(roundUp ? units + 1n : units), scale: exp };
    }
    value *= 10n;
    high *= 10n;
    low *= 10n;
  }
}
