// IQ1_S and IQ1_M, super-blocks of 256, as gguf-py's quants.py dequantizes them: each group of 8
// elements is a row of a grid of -1, 0, 1, shifted by +-1/8 and multiplied by a float32 scale
// (numpy's dl * (grid + delta); grid + delta is exact).

import { iq1sGrid } from './grids.js';
import { halfTable } from './half.js';
import { type Kernel, u16 } from './kernel.js';

const DELTA = 0.125;

function writeGroup(
  out: Float32Array,
  to: number,
  grid: Float64Array,
  row: number,
  dl: number,
  delta: number,
): void {
  for (let j = 0; j < 8; j++) out[to + j] = dl * ((grid[row * 8 + j] as number) + delta);
}

/**
 * IQ1_S: sub-block ib's uint16 at 34 + 2 * ib holds 3 high row bits per group (bits 3k..3k+2 for
 * group k), a 3-bit scale s (dl = d * (2 * s + 1)) and the delta's sign (bit 15).
 */
export const dequantizeIQ1_S: Kernel = (src, out, blocks) => {
  const half = halfTable();
  const grid = iq1sGrid();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 50, o += 256) {
    const d = half[u16(src, at)] as number;
    for (let ib = 0; ib < 8; ib++) {
      const qh = u16(src, at + 34 + 2 * ib);
      const dl = Math.fround(d * (2 * ((qh >> 12) & 7) + 1));
      const delta = qh & 0x8000 ? -DELTA : DELTA;
      for (let k = 0; k < 4; k++) {
        const g = 4 * ib + k;
        const row = (src[at + 2 + g] as number) | (((qh >> (3 * k)) & 7) << 8);
        writeGroup(out, o + 8 * g, grid, row, dl, delta);
      }
    }
  }
};

/**
 * IQ1_M: the float16 scale is the top nibbles of the four uint16s at 48 (word k gives bits
 * 4k..4k+3); 3-bit scale i (dl = d * (2 * s + 1)) is bits 3(i & 3).. of word i >> 2; group g takes
 * nibble g & 1 of byte 32 + (g >> 1): 3 high row bits and the delta's sign (bit 3); its scale is g >> 1.
 */
export const dequantizeIQ1_M: Kernel = (src, out, blocks) => {
  const half = halfTable();
  const grid = iq1sGrid();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 56, o += 256) {
    const w0 = u16(src, at + 48);
    const w1 = u16(src, at + 50);
    const w2 = u16(src, at + 52);
    const w3 = u16(src, at + 54);
    const d = half[(w0 >> 12) | ((w1 >> 8) & 0xf0) | ((w2 >> 4) & 0xf00) | (w3 & 0xf000)] as number;
    for (let g = 0; g < 32; g++) {
      const i = g >> 1;
      const word = u16(src, at + 48 + 2 * (i >> 2));
      const dl = Math.fround(d * (2 * ((word >> (3 * (i & 3))) & 7) + 1));
      const nibble = ((src[at + 32 + (g >> 1)] as number) >> ((g & 1) << 2)) & 15;
      const row = (src[at + g] as number) | ((nibble & 7) << 8);
      writeGroup(out, o + 8 * g, grid, row, dl, nibble & 8 ? -DELTA : DELTA);
    }
  }
};
