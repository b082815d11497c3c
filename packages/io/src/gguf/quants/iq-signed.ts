// The IQ2 and IQ3 super-blocks of 256 (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S), as gguf-py's
// quants.py dequantizes them: each group of 8 (IQ2) or 4 (IQ3) elements is a row of a fixed grid,
// scaled by its sub-block's float32 scale, then signed. numpy computes db * grid * signs, so the
// scaled value is rounded to float32 first and the sign multiplies it (a NaN keeps its sign).

import {
  iq2sGrid,
  iq2xsGrid,
  iq2xxsGrid,
  iq3sGrid,
  iq3xxsGrid,
  signBytes,
  signsOfByte,
} from './grids.js';
import { halfTable } from './half.js';
import { type Kernel, u16, u32 } from './kernel.js';

/**
 * IQ2_XXS and IQ3_XXS: sub-block ib's 32 elements take their grid rows from bytes, and the
 * uint32 after them holds four 7-bit sign indices (one per 8 elements) and a 4-bit scale s:
 * db = d * (0.5 + s) * factor.
 */
function dequantizeXxs(
  src: Uint8Array,
  out: Float32Array,
  blocks: number,
  typeSize: number,
  grid: Float64Array,
  rowLength: number,
  factor: number,
): void {
  const half = halfTable();
  const ksigns = signBytes();
  const signs = signsOfByte();
  const rowsPerSub = 32 / rowLength;
  // IQ2_XXS interleaves 4 row bytes and the uint32 per sub-block; IQ3_XXS keeps 64 row bytes,
  // then the 8 uint32s.
  const interleaved = rowLength === 8;
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += typeSize, o += 256) {
    const d = half[u16(src, at)] as number;
    for (let ib = 0; ib < 8; ib++) {
      const rowsAt = interleaved ? at + 2 + 8 * ib : at + 2 + rowsPerSub * ib;
      const word = u32(src, interleaved ? rowsAt + 4 : at + 66 + 4 * ib);
      const db = Math.fround(Math.fround(d * (0.5 + (word >>> 28))) * factor);
      for (let e = 0; e < 32; e++) {
        const signByte = ksigns[(word >>> (7 * (e >> 3))) & 127] as number;
        const row = src[rowsAt + Math.floor(e / rowLength)] as number;
        const value = grid[row * rowLength + (e % rowLength)] as number;
        out[o + 32 * ib + e] = Math.fround(db * value) * (signs[signByte * 8 + (e & 7)] as number);
      }
    }
  }
}

export const dequantizeIQ2_XXS: Kernel = (src, out, blocks) =>
  dequantizeXxs(src, out, blocks, 66, iq2xxsGrid(), 8, 0.25);

export const dequantizeIQ3_XXS: Kernel = (src, out, blocks) =>
  dequantizeXxs(src, out, blocks, 98, iq3xxsGrid(), 4, 0.5);

/**
 * IQ2_XS and IQ2_S: 32 groups of 8; group g is scaled by d * (0.5 + s) * 0.25, s the nibble
 * (g >> 1) & 1 of byte scalesAt + (g >> 2); `rowAndSigns` gives its grid row times 256 plus its
 * sign byte.
 */
function dequantizeGroupsOf8(
  src: Uint8Array,
  out: Float32Array,
  blocks: number,
  typeSize: number,
  scalesAt: number,
  grid: Float64Array,
  rowAndSigns: (src: Uint8Array, at: number, g: number) => number,
): void {
  const half = halfTable();
  const signs = signsOfByte();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += typeSize, o += 256) {
    const d = half[u16(src, at)] as number;
    for (let g = 0; g < 32; g++) {
      const s = ((src[at + scalesAt + (g >> 2)] as number) >> (g & 2 ? 4 : 0)) & 15;
      const db = Math.fround(Math.fround(d * (0.5 + s)) * 0.25);
      const code = rowAndSigns(src, at, g);
      const row = (code >> 8) * 8;
      const signAt = (code & 255) * 8;
      for (let j = 0; j < 8; j++)
        out[o + 8 * g + j] =
          Math.fround(db * (grid[row + j] as number)) * (signs[signAt + j] as number);
    }
  }
}

/** IQ2_XS: one uint16 per group: bits 0..8 pick the grid row, bits 9..15 the sign index. */
export const dequantizeIQ2_XS: Kernel = (src, out, blocks) => {
  const ksigns = signBytes();
  dequantizeGroupsOf8(src, out, blocks, 74, 66, iq2xsGrid(), (bytes, at, g) => {
    const q = u16(bytes, at + 2 + 2 * g);
    return ((q & 511) << 8) | (ksigns[q >> 9] as number);
  });
};

/** IQ2_S: grid row qs[g] | (2 bits of qh[g >> 2]) << 8, sign bits from byte 34 + g. */
export const dequantizeIQ2_S: Kernel = (src, out, blocks) =>
  dequantizeGroupsOf8(src, out, blocks, 82, 74, iq2sGrid(), (bytes, at, g) => {
    const high = ((bytes[at + 66 + (g >> 2)] as number) >> ((g & 3) << 1)) & 3;
    return (((bytes[at + 2 + g] as number) | (high << 8)) << 8) | (bytes[at + 34 + g] as number);
  });

/**
 * IQ3_S: group g of 4 takes grid row qs[g] | (bit g & 7 of qh[g >> 3]) << 8; element e's sign is
 * bit e & 7 of sign byte e >> 3; sub-block ib's scale is d * (1 + 2 * s), s nibble ib & 1 of byte
 * 106 + (ib >> 1).
 */
export const dequantizeIQ3_S: Kernel = (src, out, blocks) => {
  const half = halfTable();
  const grid = iq3sGrid();
  const signs = signsOfByte();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 110, o += 256) {
    const d = half[u16(src, at)] as number;
    for (let ib = 0; ib < 8; ib++) {
      const s = ((src[at + 106 + (ib >> 1)] as number) >> ((ib & 1) << 2)) & 15;
      const db = Math.fround(d * (1 + 2 * s));
      for (let k = 0; k < 8; k++) {
        const g = 8 * ib + k;
        const high = ((src[at + 66 + (g >> 3)] as number) >> (g & 7)) & 1;
        const row = ((src[at + 2 + g] as number) | (high << 8)) * 4;
        const signAt = (src[at + 74 + (g >> 1)] as number) * 8 + ((g & 1) << 2);
        for (let t = 0; t < 4; t++)
          out[o + 4 * g + t] =
            Math.fround(db * (grid[row + t] as number)) * (signs[signAt + t] as number);
      }
    }
  }
};
