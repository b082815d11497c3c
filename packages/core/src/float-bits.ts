// Conversions between JS numbers and the bit patterns of the half-width float formats.
// Used to build tensors from values and to display them; kernels never call these (they move bits).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float16 bits -> number (exact). */
export function float16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** number -> float16 bits, rounding to nearest even (as numpy's astype does). */
export function numberToFloat16(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 | (mantissa >>> 13) : 0);
  // Round from float64 directly for values that float32 might double-round.
  const abs = Math.abs(value);
  if (abs >= 65520) return sign | 0x7c00;
  if (abs < 2 ** -14) {
    // Subnormal half: value / 2^-24 rounded to nearest even.
    const q = abs / 2 ** -24;
    let r = Math.round(q);
    if (Math.abs(q - Math.trunc(q) - 0.5) === 0 && r % 2 === 1) r -= 1;
    return sign | r;
  }
  let e = Math.floor(Math.log2(abs));
  if (2 ** e > abs) e -= 1;
  if (2 ** (e + 1) <= abs) e += 1;
  const scaled = (abs / 2 ** e - 1) * 1024;
  let m = Math.floor(scaled);
  const rest = scaled - m;
  if (rest > 0.5 || (rest === 0.5 && m % 2 === 1)) m += 1;
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  if (e + 15 >= 0x1f) return sign | 0x7c00;
  mantissa = m;
  return sign | ((e + 15) << 10) | mantissa;
}

/** bfloat16 bits -> number (exact). */
export function bfloat16ToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] as number;
}

/**
 * number -> bfloat16 bits: rounded to float32 first, then to nearest even (as torch's
 * c10::BFloat16 does, so a float64 just above a bfloat16 tie can land on the even side); NaN stays
 * a quiet NaN.
 */
export function numberToBfloat16(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  if (Number.isNaN(value)) return ((x >>> 16) | 0x40) & 0xffff;
  const lower = x & 0xffff;
  let upper = x >>> 16;
  if (lower > 0x8000 || (lower === 0x8000 && (upper & 1) === 1)) upper += 1;
  return upper & 0xffff;
}
