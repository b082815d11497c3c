// The 4-bit float blocks, MXFP4 and NVFP4, as gguf-py's quants.py dequantizes them: e2m1 codes
// (doubled, so they are integers) times a per-block scale that carries the matching factor 1/2.

import { type Kernel, scaledNibbles } from './kernel.js';

/** e2m1 values doubled, by 4-bit code; code 8 is +0. */
const E2M1_DOUBLED = Float64Array.of(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);

let e8m0Halves: Float32Array | undefined;
let ue4m3Halves: Float32Array | undefined;

/** Half of 2^(x - 127) for each e8m0 byte x, by its float32 bits (x < 2 gives subnormals). */
function e8m0HalfTable(): Float32Array {
  if (e8m0Halves === undefined) {
    const values = new Float32Array(256);
    const bits = new Uint32Array(values.buffer);
    for (let x = 0; x < 256; x++) bits[x] = x < 2 ? 0x00200000 << x : (x - 1) << 23;
    e8m0Halves = values;
  }
  return e8m0Halves;
}

/**
 * Half of each unsigned e4m3 byte (bias 7, the top bit ignored); 0 and 0x7F read as zero. Every
 * value is exact in float32, so the order numpy computes it in does not matter.
 */
function ue4m3HalfTable(): Float32Array {
  if (ue4m3Halves === undefined) {
    const values = new Float32Array(256);
    for (let x = 0; x < 256; x++) {
      const exponent = (x >> 3) & 15;
      const mantissa = x & 7;
      const raw = exponent === 0 ? mantissa * 2 ** -9 : (1 + mantissa / 8) * 2 ** (exponent - 7);
      values[x] = x === 0 || x === 0x7f ? 0 : raw * 0.5;
    }
    ue4m3Halves = values;
  }
  return ue4m3Halves;
}

/** MXFP4: an e8m0 scale byte, then 16 bytes; element j < 16 is byte j's low nibble, j + 16 its high. */
export const dequantizeMXFP4: Kernel = (src, out, blocks) => {
  const scales = e8m0HalfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 17, o += 32) {
    scaledNibbles(src, at + 1, out, o, scales[src[at] as number] as number, E2M1_DOUBLED);
  }
};

/**
 * NVFP4: four ue4m3 scale bytes, one per group of 16, then 32 bytes; in group g, element l < 8 is
 * the low nibble of byte g * 8 + l and element 8 + l its high nibble.
 */
export const dequantizeNVFP4: Kernel = (src, out, blocks) => {
  const scales = ue4m3HalfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 36, o += 64) {
    for (let g = 0; g < 4; g++) {
      const d = scales[src[at + g] as number] as number;
      const qs = at + 4 + g * 8;
      const to = o + g * 16;
      for (let l = 0; l < 8; l++) {
        const q = src[qs + l] as number;
        out[to + l] = d * (E2M1_DOUBLED[q & 15] as number);
        out[to + 8 + l] = d * (E2M1_DOUBLED[q >> 4] as number);
      }
    }
  }
};
