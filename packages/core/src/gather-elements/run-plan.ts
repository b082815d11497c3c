// The planned loops of GatherElements: copy what a plan says, from data's bytes.
import {
  copyElement,
  copyWords1,
  LONG_BLOCK_BYTES,
  touchRange,
  type WordView,
  wordView,
  wordWidth,
} from '../copy.js';
import { ZERO_FILL } from '../indices.js';
import { tileLength, touchedRowBytes } from './geometry.js';
import type { GatherElementsPlan } from './plan.js';

/** Copies the planned elements from `src` (all of data's bytes) into `dst` (zeroed, output-sized). */
export function runGatherElementsPlan(
  plan: GatherElementsPlan,
  src: Uint8Array,
  dst: Uint8Array,
): void {
  const { itemBytes } = plan;
  if (itemBytes >= LONG_BLOCK_BYTES) {
    copyLongElements(plan, src, dst);
    return;
  }
  const width = wordWidth(itemBytes, src, dst);
  const words = itemBytes / width;
  const s = wordView(src, width);
  const d = wordView(dst, width);
  // The copy loops take the plan's fields as arguments, not the plan: optimised code that reads
  // a field of an object literal depends on the literal's hidden class, which a full GC between
  // two calls can collect; the code is then thrown away and every call re-optimises (seen with
  // --trace-deopt as 'weak objects' deopts, and slower calls under the bench's GC-per-call).
  const {
    outer,
    indicesAxisSize,
    inner,
    axisSize,
    axisStride,
    outerOffsets,
    innerOffsets,
    positions,
  } = plan;
  if (inner === 1) {
    copyInner1(
      outer,
      indicesAxisSize,
      touchedRowBytes(axisSize, axisStride, itemBytes, indicesAxisSize),
      axisStride,
      itemBytes,
      outerOffsets,
      positions,
      src,
      s,
      d,
      words,
    );
  } else {
    copyTiled(
      outer,
      indicesAxisSize,
      inner,
      axisStride,
      outerOffsets,
      innerOffsets,
      positions,
      s,
      d,
      words,
      tileLength(axisSize, itemBytes),
    );
  }
}

/**
 * Long items (long fixed-width strings): one memmove per element, from a plain view (faster than
 * subarray() for short items).
 */
function copyLongElements(plan: GatherElementsPlan, src: Uint8Array, dst: Uint8Array): void {
  const {
    itemBytes,
    outer,
    indicesAxisSize,
    inner,
    axisStride,
    outerOffsets,
    innerOffsets,
    positions,
  } = plan;
  const { buffer, byteOffset } = src;
  let d = 0;
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    for (let a = 0; a < indicesAxisSize; a++) {
      for (let j = 0; j < inner; j++, d++) {
        const p = positions[d] as number;
        if (p === ZERO_FILL) continue;
        const off = innerOffsets === null ? j : (innerOffsets[j] as number);
        const from = byteOffset + (base + p * axisStride + off) * itemBytes;
        dst.set(new Uint8Array(buffer, from, itemBytes), d * itemBytes);
      }
    }
  }
}

/**
 * inner = 1 (the axis is the last dim, or the dims after it are 1 in indices): output row o picks
 * elements of data row o, which is first read whole when `touchBytes` is not 0 (touchedRowBytes).
 */
function copyInner1(
  outer: number,
  indicesAxisSize: number,
  touchBytes: number,
  axisStride: number,
  itemBytes: number,
  outerOffsets: Int32Array | Float64Array,
  positions: Int32Array | Float64Array,
  bytes: Uint8Array,
  src: WordView,
  dst: WordView,
  words: number,
): void {
  let d = 0;
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    if (touchBytes > 0) touchRange(bytes, base * itemBytes, base * itemBytes + touchBytes);
    const end = d + indicesAxisSize;
    if (words === 1) {
      d = copyWords1(positions, d, end, base, axisStride, src, dst, d);
      continue;
    }
    for (; d < end; d++) {
      const p = positions[d] as number;
      if (p !== ZERO_FILL) copyElement(src, (base + p * axisStride) * words, dst, d * words, words);
    }
  }
}

/**
 * inner > 1 (an axis before the last): output element (o, a, j) reads data row positions[...]
 * at inner position j, a random row per element. Walking the output in column tiles keeps the
 * tile's slice of every data row in cache, which a plain C-order walk does not;
 * with few rows along the axis one tile covers all of inner, which is the plain walk.
 */
function copyTiled(
  outer: number,
  indicesAxisSize: number,
  inner: number,
  axisStride: number,
  outerOffsets: Int32Array | Float64Array,
  innerOffsets: Int32Array | Float64Array | null,
  positions: Int32Array | Float64Array,
  src: WordView,
  dst: WordView,
  words: number,
  tile: number,
): void {
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    const first = o * indicesAxisSize * inner;
    for (let j0 = 0; j0 < inner; j0 += tile) {
      const j1 = Math.min(inner, j0 + tile);
      for (let a = 0, row = first; a < indicesAxisSize; a++, row += inner) {
        if (words === 1 && innerOffsets === null) {
          for (let j = j0; j < j1; j++) {
            const p = positions[row + j] as number;
            if (p !== ZERO_FILL) dst[row + j] = src[base + p * axisStride + j] as number;
          }
          continue;
        }
        for (let j = j0; j < j1; j++) {
          const p = positions[row + j] as number;
          if (p === ZERO_FILL) continue;
          const off = innerOffsets === null ? j : (innerOffsets[j] as number);
          copyElement(src, (base + p * axisStride + off) * words, dst, (row + j) * words, words);
        }
      }
    }
  }
}
