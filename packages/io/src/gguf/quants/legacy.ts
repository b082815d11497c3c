// The legacy blocks of 32: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, as gguf-py's quants.py dequantizes them.
// Element j < 16 of a block takes the low nibble of byte j, element j + 16 its high nibble; Q5's
// fifth bits are bit j of a little-endian uint32. Q4_1 and Q5_1 round d * q to float32 before
// adding m, as numpy computes (d * qs) + m.

import { halfTable } from './half.js';
import { type Kernel, u16, u32 } from './kernel.js';

/**
 * p + m, where a NaN p wins over a NaN m: numpy's float32 add keeps its first operand's NaN, while
 * JavaScript's add is commutative and may keep either.
 */
function plusMin(p: number, m: number): number {
  return Number.isNaN(p) ? p : p + m;
}

export const dequantizeQ4_0: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 18, o += 32) {
    const d = half[u16(src, at)] as number;
    for (let j = 0; j < 16; j++) {
      const q = src[at + 2 + j] as number;
      out[o + j] = d * ((q & 15) - 8);
      out[o + j + 16] = d * ((q >> 4) - 8);
    }
  }
};

export const dequantizeQ4_1: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 20, o += 32) {
    const d = half[u16(src, at)] as number;
    const m = half[u16(src, at + 2)] as number;
    for (let j = 0; j < 16; j++) {
      const q = src[at + 4 + j] as number;
      out[o + j] = plusMin(Math.fround(d * (q & 15)), m);
      out[o + j + 16] = plusMin(Math.fround(d * (q >> 4)), m);
    }
  }
};

export const dequantizeQ5_0: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 22, o += 32) {
    const d = half[u16(src, at)] as number;
    const qh = u32(src, at + 2);
    for (let j = 0; j < 16; j++) {
      const q = src[at + 6 + j] as number;
      out[o + j] = d * ((q & 15) + (((qh >>> j) & 1) << 4) - 16);
      out[o + j + 16] = d * ((q >> 4) + (((qh >>> (j + 16)) & 1) << 4) - 16);
    }
  }
};

export const dequantizeQ5_1: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 24, o += 32) {
    const d = half[u16(src, at)] as number;
    const m = half[u16(src, at + 2)] as number;
    const qh = u32(src, at + 4);
    for (let j = 0; j < 16; j++) {
      const q = src[at + 8 + j] as number;
      out[o + j] = plusMin(Math.fround(d * ((q & 15) + (((qh >>> j) & 1) << 4))), m);
      out[o + j + 16] = plusMin(Math.fround(d * ((q >> 4) + (((qh >>> (j + 16)) & 1) << 4))), m);
    }
  }
};

/** Q8_0 reads its int8 quants four at a time (a little-endian int32 holds bytes k..k+3). */
export const dequantizeQ8_0: Kernel = (src, out, blocks) => {
  const half = halfTable();
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 34) {
    const d = half[view.getUint16(at, true)] as number;
    for (let k = at + 2; k < at + 34; k += 4, o += 4) {
      const x = view.getInt32(k, true);
      out[o] = ((x << 24) >> 24) * d;
      out[o + 1] = ((x << 16) >> 24) * d;
      out[o + 2] = ((x << 8) >> 24) * d;
      out[o + 3] = (x >> 24) * d;
    }
  }
};
