// A decimal rounded once, to nearest even, to float32, float16 or bfloat16: never twice through
// float64, which gives a different value where the decimal lies just off a midpoint between two
// neighbours of the narrow format.
//
// Why the float64 step is safe to take first: every midpoint of the narrow formats (and their
// overflow threshold) is a float64, and rounding to float64 is monotonic, so the nearest float64
// can land on a midpoint only when the decimal is at or near it, never cross one. So the float64
// decides every case but that one; there the decimal is compared exactly with the midpoint, as
// digit strings (the midpoint's exact decimal has a bounded number of digits), which is linear in
// the token.

import type { DecimalToken } from './decimal-token.js';

/** An IEEE-style binary format: `precision` bits with the implicit one, normal exponents. */
interface BinaryFormat {
  readonly precision: number;
  readonly minExponent: number;
  readonly maxExponent: number;
}

export const FLOAT32: BinaryFormat = { precision: 24, minExponent: -126, maxExponent: 127 };
export const FLOAT16: BinaryFormat = { precision: 11, minExponent: -14, maxExponent: 15 };
export const BFLOAT16: BinaryFormat = { precision: 8, minExponent: -126, maxExponent: 127 };

const bits = new DataView(new ArrayBuffer(8));

/**
 * The value of a 'decimal' or 'integer' token rounded once to `format` (a number that the format
 * holds exactly, or ±Infinity, or ±0).
 */
export function roundDecimal(token: DecimalToken, format: BinaryFormat): number {
  const nearest = token.toFloat64();
  if (nearest === 0 || !Number.isFinite(nearest)) return nearest;
  const magnitude = Math.abs(nearest);
  const quantum = 2 ** (Math.max(exponentOf(magnitude), format.minExponent) - format.precision + 1);
  // Exact: a scaling by a power of two that can only move the value away from underflow.
  const scaled = magnitude / quantum;
  const below = Math.floor(scaled);
  const fraction = scaled - below;
  let up = fraction > 0.5;
  if (fraction === 0.5) {
    const order = compareWithFloat64(token, magnitude);
    up = order > 0 || (order === 0 && below % 2 === 1);
  }
  const rounded = (up ? below + 1 : below) * quantum;
  const value = rounded >= 2 ** (format.maxExponent + 1) ? Number.POSITIVE_INFINITY : rounded;
  return token.negative ? -value : value;
}

/** floor(log2(x)) for a positive finite float64, exactly. */
function exponentOf(x: number): number {
  bits.setFloat64(0, x);
  const biased = bits.getUint16(0) >>> 4;
  // A subnormal scaled by 2^64 (exactly) is normal.
  return biased !== 0 ? biased - 1023 : exponentOf(x * 2 ** 64) - 64;
}

/**
 * The sign of |decimal| - x for a positive finite float64 x, exactly: both as 0.DIGITS × 10^E
 * with no trailing zeros, compared by exponent and then digit by digit.
 */
function compareWithFloat64(token: DecimalToken, x: number): number {
  const exact = exactDecimal(x);
  const tokenDigits = token.sticky ? `${token.digits}1` : token.digits.replace(/0+$/, '');
  const tokenExponent = token.decimalExponent();
  if (tokenExponent !== exact.exponent) return tokenExponent > exact.exponent ? 1 : -1;
  if (tokenDigits === exact.digits) return 0;
  // Lexicographic order of digit strings without trailing zeros is the order of 0.DIGITS.
  return tokenDigits > exact.digits ? 1 : -1;
}

/** A positive finite float64 as 0.DIGITS × 10^exponent, DIGITS without trailing zeros. */
function exactDecimal(x: number): { digits: string; exponent: number } {
  bits.setFloat64(0, x);
  const biased = bits.getUint16(0) >>> 4;
  const fraction = (BigInt(bits.getUint32(0) & 0xfffff) << 32n) | BigInt(bits.getUint32(4));
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = (biased === 0 ? 1 : biased) - 1075;
  // x = mantissa × 2^power = integer × 10^scale.
  const integer = power >= 0 ? mantissa << BigInt(power) : mantissa * 5n ** BigInt(-power);
  const scale = Math.min(power, 0);
  const text = integer.toString();
  return { digits: text.replace(/0+$/, ''), exponent: text.length + scale };
}
