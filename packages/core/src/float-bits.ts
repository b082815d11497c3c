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

/** The 8-bit float dtypes (ml_dtypes names). */
export type Float8Dtype =
  | 'float8_e4m3fn'
  | 'float8_e4m3fnuz'
  | 'float8_e5m2'
  | 'float8_e5m2fnuz'
  | 'float8_e8m0fnu';

/**
 * bfloat16 bits -> float32 bits. bfloat16 is the upper half of a float32, so this is exact for
 * every pattern: NaN payloads and signalling NaNs survive.
 */
export function bfloat16ToFloat32Bits(bits: number): number {
  return ((bits & 0xffff) << 16) >>> 0;
}

// Canonical quiet NaN for formats whose NaN carries no payload to keep.
const QUIET_NAN = 0x7fc00000;

/**
 * float32 bits of one float8 code, computed in integers (every float8 value is a float32 value).
 * `kind` says where the format keeps its specials: 'ieee' (e5m2: all-ones exponent is inf/NaN),
 * 'fn' (e4m3fn: only S.1111.111 is NaN, no inf), 'fnuz' (0x80 is the only NaN; no inf, no -0).
 */
function float8Bits(
  code: number,
  exponentBits: number,
  mantissaBits: number,
  bias: number,
  kind: 'ieee' | 'fn' | 'fnuz',
): number {
  const sign = code & 0x80 ? 0x80000000 : 0;
  const maxExponent = (1 << exponentBits) - 1;
  const mantissaMask = (1 << mantissaBits) - 1;
  const e = (code >> mantissaBits) & maxExponent;
  let m = code & mantissaMask;
  const shift = 23 - mantissaBits;
  if (kind === 'fnuz' && code === 0x80) return QUIET_NAN;
  if (kind === 'fn' && e === maxExponent && m === mantissaMask) return (sign | QUIET_NAN) >>> 0;
  if (kind === 'ieee' && e === maxExponent) {
    // Same rule as numpy's half -> float: the payload moves up, so NaN stays NaN bit for bit.
    return (sign | 0x7f800000 | (m << shift)) >>> 0;
  }
  if (e === 0) {
    if (m === 0) return sign >>> 0;
    let exponent = 1 - bias;
    while ((m & (1 << mantissaBits)) === 0) {
      m <<= 1;
      exponent--;
    }
    return (sign | ((exponent + 127) << 23) | ((m & mantissaMask) << shift)) >>> 0;
  }
  return (sign | ((e - bias + 127) << 23) | (m << shift)) >>> 0;
}

/** e8m0fnu is a bare biased exponent: 2^(code-127); 0xff is NaN; there is no zero and no sign. */
function e8m0Bits(code: number): number {
  if (code === 0xff) return QUIET_NAN;
  // 2^-127 is below float32's normal range: the subnormal with only mantissa bit 22 set.
  return code === 0 ? 0x00400000 : (code << 23) >>> 0;
}

const FLOAT8_TABLES = new Map<Float8Dtype, Uint32Array>();

function float8Table(dtype: Float8Dtype): Uint32Array {
  let table = FLOAT8_TABLES.get(dtype);
  if (table === undefined) {
    table = new Uint32Array(256);
    for (let c = 0; c < 256; c++) {
      switch (dtype) {
        case 'float8_e4m3fn':
          table[c] = float8Bits(c, 4, 3, 7, 'fn');
          break;
        case 'float8_e4m3fnuz':
          table[c] = float8Bits(c, 4, 3, 8, 'fnuz');
          break;
        case 'float8_e5m2':
          table[c] = float8Bits(c, 5, 2, 15, 'ieee');
          break;
        case 'float8_e5m2fnuz':
          table[c] = float8Bits(c, 5, 2, 16, 'fnuz');
          break;
        case 'float8_e8m0fnu':
          table[c] = e8m0Bits(c);
          break;
      }
    }
    FLOAT8_TABLES.set(dtype, table);
  }
  return table;
}

/**
 * float8 code -> float32 bits, exact (float32 holds every float8 value). NaN codes become a quiet
 * NaN: e5m2 keeps its payload and sign, e4m3fn its sign; the fnuz formats and e8m0fnu have a
 * single unsigned NaN and give 0x7fc00000.
 */
export function float8ToFloat32Bits(dtype: Float8Dtype, code: number): number {
  return float8Table(dtype)[code & 0xff] as number;
}

/** float8 code -> number (exact), e.g. for display. */
export function float8ToNumber(dtype: Float8Dtype, code: number): number {
  u32[0] = float8ToFloat32Bits(dtype, code);
  return f32[0] as number;
}

/** True for the 8-bit float dtypes. */
export function isFloat8Dtype(dtype: string): dtype is Float8Dtype {
  return (
    dtype === 'float8_e4m3fn' ||
    dtype === 'float8_e4m3fnuz' ||
    dtype === 'float8_e5m2' ||
    dtype === 'float8_e5m2fnuz' ||
    dtype === 'float8_e8m0fnu'
  );
}
