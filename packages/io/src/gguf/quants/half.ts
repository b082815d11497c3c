// float16 bits to float32, as numpy's float16 -> float32 cast gives them: exact for every finite
// value, signed zeros kept, and infinities and NaNs keeping sign and payload (shifted into the
// top of the float32 mantissa).

let table: Float32Array | undefined;

/** A table from all 65536 float16 bit patterns to their float32 values, built on first use. */
export function halfTable(): Float32Array {
  if (table === undefined) {
    const values = new Float32Array(65536);
    const bits = new Uint32Array(values.buffer);
    for (let h = 0; h < 65536; h++) bits[h] = halfBitsToFloatBits(h);
    table = values;
  }
  return table;
}

function halfBitsToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exponent = h & 0x7c00;
  const mantissa = h & 0x03ff;
  if (exponent === 0x7c00) return (sign | 0x7f800000 | (mantissa << 13)) >>> 0;
  if (exponent !== 0) return (sign | (((h & 0x7fff) + 0x1c000) << 13)) >>> 0;
  if (mantissa === 0) return sign >>> 0;
  // A subnormal float16 is mantissa * 2^-24: normalize it into float32's wider exponent range.
  let shift = 0;
  let m = mantissa;
  while ((m & 0x0400) === 0) {
    m <<= 1;
    shift++;
  }
  return (sign | ((113 - shift) << 23) | ((m & 0x03ff) << 13)) >>> 0;
}
