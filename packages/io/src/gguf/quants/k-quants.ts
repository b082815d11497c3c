// The K-quants, super-blocks of 256: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, as gguf-py's quants.py
// dequantizes them. Each sub-block's scale (and min) is d * sc rounded to float32 first, then
// applied to the quant; where a min is subtracted, the scaled quant is rounded before it, as numpy
// computes dl * q - ml.

import { halfTable } from './half.js';
import { type Kernel, u16 } from './kernel.js';

/** Q2_K: 16 sub-blocks of 16; byte 0..15 low nibble scales, high nibble mins; 2-bit quants. */
export const dequantizeQ2_K: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 84, o += 256) {
    const d = half[u16(src, at + 80)] as number;
    const dmin = half[u16(src, at + 82)] as number;
    // Element e = h * 128 + s * 32 + l takes bits 2s..2s+1 of quant byte h * 32 + l.
    for (let e = 0; e < 256; e += 16) {
      const sc = src[at + (e >> 4)] as number;
      const dl = Math.fround(d * (sc & 15));
      const ml = Math.fround(dmin * (sc >> 4));
      const byteAt = at + 16 + ((e >> 7) << 5) + (e & 31);
      const shift = ((e >> 5) & 3) << 1;
      for (let l = 0; l < 16; l++)
        out[o + e + l] = Math.fround(dl * (((src[byteAt + l] as number) >> shift) & 3)) - ml;
    }
  }
};

/** Q3_K: 16 sub-blocks of 16 with 6-bit signed scales; 2-bit quants minus 4 where the hmask bit is clear. */
export const dequantizeQ3_K: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 110, o += 256) {
    const d = half[u16(src, at + 108)] as number;
    const scales = at + 96;
    for (let e = 0; e < 256; e += 16) {
      const i = e >> 4;
      const low = i < 8 ? (src[scales + i] as number) & 15 : (src[scales + i - 8] as number) >> 4;
      const high = ((src[scales + 8 + (i & 3)] as number) >> ((i >> 2) << 1)) & 3;
      const dl = Math.fround(d * ((low | (high << 4)) - 32));
      const byteAt = at + 32 + ((e >> 7) << 5) + (e & 31);
      const shift = ((e >> 5) & 3) << 1;
      // The high bit of element e is bit e >> 5 of hmask byte e & 31.
      const hbit = e >> 5;
      const maskAt = at + (e & 31);
      for (let l = 0; l < 16; l++) {
        const q = ((src[byteAt + l] as number) >> shift) & 3;
        const h = ((src[maskAt + l] as number) >> hbit) & 1;
        out[o + e + l] = dl * (q - ((h ^ 1) << 2));
      }
    }
  }
};

// The scales and mins of the Q4_K or Q5_K block being read (scratch: kernels run to completion).
const scale = new Float64Array(8);
const min = new Float64Array(8);

/**
 * Q4_K and Q5_K: the block at `at` starts with float16 d and dmin, then 8 sub-blocks' 6-bit
 * scales and mins packed in 12 bytes; writes sub-block j's scale (d times its 6 bits) and min to
 * scale[j], min[j].
 */
function scalesAndMins(src: Uint8Array, at: number, half: Float32Array): void {
  const d = half[u16(src, at)] as number;
  const dmin = half[u16(src, at + 2)] as number;
  const p = at + 4;
  for (let j = 0; j < 4; j++) {
    scale[j] = Math.fround(d * ((src[p + j] as number) & 0x3f));
    min[j] = Math.fround(dmin * ((src[p + 4 + j] as number) & 0x3f));
    const both = src[p + 8 + j] as number;
    scale[j + 4] = Math.fround(d * ((both & 15) | (((src[p + j] as number) >> 2) & 0x30)));
    min[j + 4] = Math.fround(dmin * ((both >> 4) | (((src[p + 4 + j] as number) >> 2) & 0x30)));
  }
}

/**
 * Q4_K: element e = c * 64 + s * 32 + l is nibble s of byte 16 + c * 32 + l; the quant bytes are
 * read four at a time (a little-endian uint32 holds bytes l..l+3).
 */
export const dequantizeQ4_K: Kernel = (src, out, blocks) => {
  const half = halfTable();
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 144, o += 256) {
    scalesAndMins(src, at, half);
    for (let c = 0; c < 4; c++) {
      const ls = scale[2 * c] as number;
      const lm = min[2 * c] as number;
      const hs = scale[2 * c + 1] as number;
      const hm = min[2 * c + 1] as number;
      const qs = at + 16 + c * 32;
      for (let l = 0, to = o + c * 64; l < 32; l += 4, to += 4) {
        const w = view.getUint32(qs + l, true);
        out[to] = Math.fround(ls * (w & 15)) - lm;
        out[to + 1] = Math.fround(ls * ((w >> 8) & 15)) - lm;
        out[to + 2] = Math.fround(ls * ((w >> 16) & 15)) - lm;
        out[to + 3] = Math.fround(ls * ((w >> 24) & 15)) - lm;
        out[to + 32] = Math.fround(hs * ((w >> 4) & 15)) - hm;
        out[to + 33] = Math.fround(hs * ((w >> 12) & 15)) - hm;
        out[to + 34] = Math.fround(hs * ((w >> 20) & 15)) - hm;
        out[to + 35] = Math.fround(hs * (w >>> 28)) - hm;
      }
    }
  }
};

/** Q5_K: Q4_K's nibbles plus a fifth bit for sub-block j, bit j of qh byte l. */
export const dequantizeQ5_K: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 176, o += 256) {
    scalesAndMins(src, at, half);
    for (let j = 0; j < 8; j++) {
      const dl = scale[j] as number;
      const ml = min[j] as number;
      const qs = at + 48 + (j >> 1) * 32;
      const shift = (j & 1) << 2;
      for (let l = 0, to = o + j * 32; l < 32; l++, to++) {
        const fifth = (((src[at + 16 + l] as number) >> j) & 1) << 4;
        out[to] = Math.fround(dl * ((((src[qs + l] as number) >> shift) & 15) | fifth)) - ml;
      }
    }
  }
};

/**
 * Q6_K: 16 sub-blocks of 16 with int8 scales; element e = h * 128 + s * 32 + l (l < 32) takes
 * nibble s >> 1 of ql byte h * 64 + (s & 1) * 32 + l and bits 2s..2s+1 of qh byte h * 32 + l, so
 * the two ql bytes and one qh byte at l give the four elements s = 0..3 together.
 */
export const dequantizeQ6_K: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 210, o += 256) {
    const d = half[u16(src, at + 208)] as number;
    for (let h = 0; h < 2; h++) {
      const ql = at + h * 64;
      const qh = at + 128 + h * 32;
      for (let l0 = 0; l0 < 32; l0 += 16) {
        // Sub-block of element h * 128 + s * 32 + l0 + l is h * 8 + s * 2 + (l0 >> 4).
        const first = at + 192 + h * 8 + (l0 >> 4);
        const d0 = Math.fround(d * (((src[first] as number) << 24) >> 24));
        const d1 = Math.fround(d * (((src[first + 2] as number) << 24) >> 24));
        const d2 = Math.fround(d * (((src[first + 4] as number) << 24) >> 24));
        const d3 = Math.fround(d * (((src[first + 6] as number) << 24) >> 24));
        for (let l = l0, to = o + h * 128 + l0; l < l0 + 16; l++, to++) {
          const a = src[ql + l] as number;
          const c = src[ql + 32 + l] as number;
          const x = src[qh + l] as number;
          out[to] = d0 * ((a & 15) + ((x & 3) << 4) - 32);
          out[to + 32] = d1 * ((c & 15) + (((x >> 2) & 3) << 4) - 32);
          out[to + 64] = d2 * ((a >> 4) + (((x >> 4) & 3) << 4) - 32);
          out[to + 96] = d3 * ((c >> 4) + ((x >> 6) << 4) - 32);
        }
      }
    }
  }
};
