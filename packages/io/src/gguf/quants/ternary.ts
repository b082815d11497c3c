// The ternary blocks of 256, TQ1_0 and TQ2_0, as gguf-py's quants.py dequantizes them: each element
// is -1, 0 or 1 times the float16 scale d at the end of the block.

import { halfTable } from './half.js';
import { type Kernel, u16 } from './kernel.js';

const POWERS_OF_3 = [1, 3, 9, 27, 81];

/**
 * TQ1_0: base-3 digits packed five to a byte as a fixed-point fraction of 243. Digit k of byte x
 * is ((x * 3^k mod 256) * 3) >> 8. Bytes 0..31 hold elements k * 32 + l, bytes 32..47 elements
 * 160 + k * 16 + l, bytes 48..51 (four digits each) elements 240 + k * 4 + l.
 */
export const dequantizeTQ1_0: Kernel = (src, out, blocks) => {
  const half = halfTable();
  const digit = (x: number, k: number): number =>
    ((((x * (POWERS_OF_3[k] as number)) & 255) * 3) >> 8) - 1;
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 54, o += 256) {
    const d = half[u16(src, at + 52)] as number;
    for (let k = 0; k < 5; k++) {
      for (let l = 0; l < 32; l++) out[o + k * 32 + l] = d * digit(src[at + l] as number, k);
      for (let l = 0; l < 16; l++)
        out[o + 160 + k * 16 + l] = d * digit(src[at + 32 + l] as number, k);
    }
    for (let k = 0; k < 4; k++)
      for (let l = 0; l < 4; l++)
        out[o + 240 + k * 4 + l] = d * digit(src[at + 48 + l] as number, k);
  }
};

/** TQ2_0: 2-bit codes minus 1; element h * 128 + s * 32 + l is bits 2s..2s+1 of byte h * 32 + l. */
export const dequantizeTQ2_0: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 66, o += 256) {
    const d = half[u16(src, at + 64)] as number;
    for (let e = 0; e < 256; e++) {
      const byte = src[at + ((e >> 7) << 5) + (e & 31)] as number;
      out[o + e] = d * (((byte >> (((e >> 5) & 3) << 1)) & 3) - 1);
    }
  }
};
