// The fused loops of GatherElements: the planned loops with index decoding folded in, for when
// WebAssembly is not available (fused-walk.ts says which cases they take).
import { touchRange, type WordView } from '../copy.js';

/**
 * The planned inner = 1 loop (run-plan.ts) reading int32 (int64Indices false) or int64
 * (int64Indices true, as int32 pairs) indices in place.
 * Eight indices are checked and eight loads issued before their stores, so eight cache misses
 * overlap (as copy.ts's copyWords1). An index is valid when its high word is the sign extension of
 * its low word (it fits in int32) and `p = lo + (lo < 0 ? bound : 0)` is in [0, bound), which
 * `(bound - 1 - p) | p` tests with one sign bit. Returns false at the first group holding an
 * invalid index.
 */
export function fusedInner1(
  outer: number,
  indicesAxisSize: number,
  axisSize: number,
  axisStride: number,
  touchBytes: number,
  outerOffsets: Int32Array | Float64Array,
  bytes: Uint8Array,
  idx: Int32Array,
  int64Indices: boolean,
  src: WordView,
  dst: WordView,
): boolean {
  const itemBytes = bytes.byteLength / src.length;
  const bound = axisSize;
  const last = bound - 1;
  const step = int64Indices ? 2 : 1;
  let d = 0;
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    if (touchBytes > 0) touchRange(bytes, base * itemBytes, base * itemBytes + touchBytes);
    const end = d + indicesAxisSize;
    for (; d + 8 <= end; d += 8) {
      const i = d * step;
      let lo0: number, lo1: number, lo2: number, lo3: number;
      let lo4: number, lo5: number, lo6: number, lo7: number;
      let hiBits = 0;
      if (int64Indices) {
        lo0 = idx[i] as number;
        lo1 = idx[i + 2] as number;
        lo2 = idx[i + 4] as number;
        lo3 = idx[i + 6] as number;
        lo4 = idx[i + 8] as number;
        lo5 = idx[i + 10] as number;
        lo6 = idx[i + 12] as number;
        lo7 = idx[i + 14] as number;
        hiBits =
          ((idx[i + 1] as number) ^ (lo0 >> 31)) |
          ((idx[i + 3] as number) ^ (lo1 >> 31)) |
          ((idx[i + 5] as number) ^ (lo2 >> 31)) |
          ((idx[i + 7] as number) ^ (lo3 >> 31)) |
          ((idx[i + 9] as number) ^ (lo4 >> 31)) |
          ((idx[i + 11] as number) ^ (lo5 >> 31)) |
          ((idx[i + 13] as number) ^ (lo6 >> 31)) |
          ((idx[i + 15] as number) ^ (lo7 >> 31));
      } else {
        lo0 = idx[i] as number;
        lo1 = idx[i + 1] as number;
        lo2 = idx[i + 2] as number;
        lo3 = idx[i + 3] as number;
        lo4 = idx[i + 4] as number;
        lo5 = idx[i + 5] as number;
        lo6 = idx[i + 6] as number;
        lo7 = idx[i + 7] as number;
      }
      const p0 = lo0 + ((lo0 >> 31) & bound);
      const p1 = lo1 + ((lo1 >> 31) & bound);
      const p2 = lo2 + ((lo2 >> 31) & bound);
      const p3 = lo3 + ((lo3 >> 31) & bound);
      const p4 = lo4 + ((lo4 >> 31) & bound);
      const p5 = lo5 + ((lo5 >> 31) & bound);
      const p6 = lo6 + ((lo6 >> 31) & bound);
      const p7 = lo7 + ((lo7 >> 31) & bound);
      const rangeBits =
        (last - p0) |
        (last - p1) |
        (last - p2) |
        (last - p3) |
        (last - p4) |
        (last - p5) |
        (last - p6) |
        (last - p7) |
        p0 |
        p1 |
        p2 |
        p3 |
        p4 |
        p5 |
        p6 |
        p7;
      if (hiBits !== 0 || rangeBits < 0) return false;
      const w0 = src[base + p0 * axisStride] as number;
      const w1 = src[base + p1 * axisStride] as number;
      const w2 = src[base + p2 * axisStride] as number;
      const w3 = src[base + p3 * axisStride] as number;
      const w4 = src[base + p4 * axisStride] as number;
      const w5 = src[base + p5 * axisStride] as number;
      const w6 = src[base + p6 * axisStride] as number;
      const w7 = src[base + p7 * axisStride] as number;
      dst[d] = w0;
      dst[d + 1] = w1;
      dst[d + 2] = w2;
      dst[d + 3] = w3;
      dst[d + 4] = w4;
      dst[d + 5] = w5;
      dst[d + 6] = w6;
      dst[d + 7] = w7;
    }
    for (; d < end; d++) {
      const p = fusedPosition(idx, d, int64Indices, bound);
      if (p < 0) return false;
      dst[d] = src[base + p * axisStride] as number;
    }
  }
  return true;
}

/** Position of output element d's index, or -1 when it is out of range (see fusedInner1). */
function fusedPosition(idx: Int32Array, d: number, int64Indices: boolean, bound: number): number {
  const lo = idx[int64Indices ? 2 * d : d] as number;
  if (int64Indices && (idx[2 * d + 1] as number) !== lo >> 31) return -1;
  const p = lo + ((lo >> 31) & bound);
  return p >= 0 && p < bound ? p : -1;
}

/**
 * The planned tiled loop (run-plan.ts) reading int32/int64 indices in place (see fusedInner1);
 * false at an invalid index.
 */
export function fusedTiled(
  outer: number,
  indicesAxisSize: number,
  inner: number,
  axisSize: number,
  axisStride: number,
  outerOffsets: Int32Array | Float64Array,
  idx: Int32Array,
  int64Indices: boolean,
  src: WordView,
  dst: WordView,
  tile: number,
): boolean {
  const bound = axisSize;
  const last = bound - 1;
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    const first = o * indicesAxisSize * inner;
    for (let j0 = 0; j0 < inner; j0 += tile) {
      const j1 = Math.min(inner, j0 + tile);
      for (let a = 0, row = first; a < indicesAxisSize; a++, row += inner) {
        let j = j0;
        const from = base + j0;
        for (; j + 4 <= j1; j += 4) {
          const d = row + j;
          let lo0: number, lo1: number, lo2: number, lo3: number;
          let hiBits = 0;
          if (int64Indices) {
            const i = 2 * d;
            lo0 = idx[i] as number;
            lo1 = idx[i + 2] as number;
            lo2 = idx[i + 4] as number;
            lo3 = idx[i + 6] as number;
            hiBits =
              ((idx[i + 1] as number) ^ (lo0 >> 31)) |
              ((idx[i + 3] as number) ^ (lo1 >> 31)) |
              ((idx[i + 5] as number) ^ (lo2 >> 31)) |
              ((idx[i + 7] as number) ^ (lo3 >> 31));
          } else {
            lo0 = idx[d] as number;
            lo1 = idx[d + 1] as number;
            lo2 = idx[d + 2] as number;
            lo3 = idx[d + 3] as number;
          }
          const p0 = lo0 + ((lo0 >> 31) & bound);
          const p1 = lo1 + ((lo1 >> 31) & bound);
          const p2 = lo2 + ((lo2 >> 31) & bound);
          const p3 = lo3 + ((lo3 >> 31) & bound);
          const rangeBits =
            (last - p0) | (last - p1) | (last - p2) | (last - p3) | p0 | p1 | p2 | p3;
          if (hiBits !== 0 || rangeBits < 0) return false;
          const s = from + (j - j0);
          const w0 = src[s + p0 * axisStride] as number;
          const w1 = src[s + 1 + p1 * axisStride] as number;
          const w2 = src[s + 2 + p2 * axisStride] as number;
          const w3 = src[s + 3 + p3 * axisStride] as number;
          dst[d] = w0;
          dst[d + 1] = w1;
          dst[d + 2] = w2;
          dst[d + 3] = w3;
        }
        for (; j < j1; j++) {
          const p = fusedPosition(idx, row + j, int64Indices, bound);
          if (p < 0) return false;
          dst[row + j] = src[base + p * axisStride + j] as number;
        }
      }
    }
  }
  return true;
}
