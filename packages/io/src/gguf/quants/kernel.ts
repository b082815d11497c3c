// The shape every dequantizer shares, and the little-endian reads they make.
//
// A kernel writes `blocks` blocks from `src` (exactly blocks * typeSize bytes) into `out` (exactly
// blocks * blockSize floats). Arithmetic mirrors gguf-py's numpy: every float32 operation there is
// one double operation here rounded to float32 (Math.fround, or the store into `out`); a product
// or sum of two float32 values rounds to the same float32 either way, since double holds it
// exactly or with enough extra bits. Negation is written as a multiplication by -1, as numpy does
// it, so a NaN keeps its sign bit.

export type Kernel = (src: Uint8Array, out: Float32Array, blocks: number) => void;

export function u16(src: Uint8Array, at: number): number {
  return (src[at] as number) | ((src[at + 1] as number) << 8);
}

export function u32(src: Uint8Array, at: number): number {
  return (
    ((src[at] as number) |
      ((src[at + 1] as number) << 8) |
      ((src[at + 2] as number) << 16) |
      ((src[at + 3] as number) << 24)) >>>
    0
  );
}

/**
 * The common 32-element layout: element l < 16 is the low nibble of byte qsAt + l, element 16 + l
 * its high nibble, each mapped through `values` and multiplied by the float32 scale d.
 */
export function scaledNibbles(
  src: Uint8Array,
  qsAt: number,
  out: Float32Array,
  to: number,
  d: number,
  values: Float64Array,
): void {
  for (let l = 0; l < 16; l++) {
    const q = src[qsAt + l] as number;
    out[to + l] = d * (values[q & 15] as number);
    out[to + 16 + l] = d * (values[q >> 4] as number);
  }
}
