// IQ4_NL (blocks of 32) and IQ4_XS (super-blocks of 256), as gguf-py's quants.py dequantizes them:
// 4-bit codes into a fixed non-linear table of int8 values, times a float32 scale.

import { halfTable } from './half.js';
import { IQ4_VALUES } from './iq-grids.js';
import { type Kernel, scaledNibbles, u16 } from './kernel.js';

const VALUES = Float64Array.from(IQ4_VALUES);

export const dequantizeIQ4_NL: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 18, o += 32)
    scaledNibbles(src, at + 2, out, o, half[u16(src, at)] as number, VALUES);
};

/**
 * IQ4_XS: 8 sub-blocks of 32, each with a 6-bit scale minus 32: its low 4 bits are nibble i & 1 of
 * byte 4 + (i >> 1), its high 2 bits are bits 2i..2i+1 of the uint16 at byte 2.
 */
export const dequantizeIQ4_XS: Kernel = (src, out, blocks) => {
  const half = halfTable();
  for (let b = 0, at = 0, o = 0; b < blocks; b++, at += 136, o += 256) {
    const d = half[u16(src, at)] as number;
    const high = u16(src, at + 2);
    for (let i = 0; i < 8; i++) {
      const low = ((src[at + 4 + (i >> 1)] as number) >> ((i & 1) << 2)) & 15;
      const dl = Math.fround(d * ((low | (((high >> (2 * i)) & 3) << 4)) - 32));
      scaledNibbles(src, at + 8 + 16 * i, out, o + 32 * i, dl, VALUES);
    }
  }
};
