import { checkTensor, checkTensorLayout } from './check-tensor.js';
import {
  CACHE_LINE_BYTES,
  copyWords1,
  LONG_BLOCK_BYTES,
  touchRange,
  type WordView,
  wordView,
  wordWidth,
} from './copy.js';
import { dtypeSize } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { decodeIndices, type OobMode, ZERO_FILL } from './indices.js';
import { formatShape, normalizeAxis, type Shape, sizeBetween, stridesOf } from './shape.js';
import { type OutputOption, outputTensor, type Tensor } from './tensor.js';
import { type ElementsWalk, gatherElementsWasm } from './wasm/gather-elements.js';

export interface GatherElementsOptions extends OutputOption {
  /** Axis of `data` to gather along, in [-r, r-1]. Default 0. */
  readonly axis?: number;
  /** Out-of-range indices: 'error' (default) or 'zero' to fill zeros. */
  readonly oob?: OobMode;
}

/**
 * GatherElements as an output-order walk [outer, axisLength, inner] over the indices shape.
 * Output element d = (o * axisLength + a) * inner + j comes from data element
 * `outerOffsets[o] + positions[d] * axisStride + (innerOffsets?.[j] ?? j)` (element units; x
 * itemBytes for bytes). Precomputing the outer/inner offsets once is what keeps div/mod out of the
 * per-element loop even when indices' off-axis dims are smaller than data's.
 * Pure: no bytes of `data` are needed to plan, which lets an executor read only what it copies.
 */
export interface GatherElementsPlan {
  /** Equal to indices.shape. */
  readonly outShape: Shape;
  readonly itemBytes: number;
  /** prod(indices.shape[:axis]). */
  readonly outer: number;
  /** indices.shape[axis]. */
  readonly axisLength: number;
  /** prod(indices.shape[axis+1:]). */
  readonly inner: number;
  /** data.shape[axis]. */
  readonly axisSize: number;
  /** Data elements between neighbours along the axis: prod(data.shape[axis+1:]). */
  readonly axisStride: number;
  /** Data element offset of each outer position (indices.shape[:axis], C order). */
  readonly outerOffsets: Int32Array | Float64Array;
  /** Data element offset of each inner position, or null when it is simply j (inner dims equal). */
  readonly innerOffsets: Int32Array | Float64Array | null;
  /** Non-negative positions along the axis, one per output element, or ZERO_FILL. */
  readonly positions: Int32Array | Float64Array;
}

export function planGatherElements(
  data: Pick<Tensor, 'dtype' | 'shape'>,
  indices: Tensor,
  options: GatherElementsOptions = {},
): GatherElementsPlan {
  checkTensorLayout(data, 'GatherElements: data');
  checkTensor(indices, 'GatherElements: indices');
  const r = data.shape.length;
  if (r === 0) {
    throw new TensorOpsError('E_SHAPE', 'GatherElements: data must have rank >= 1, got a scalar');
  }
  if (indices.shape.length !== r) {
    throw new TensorOpsError(
      'E_SHAPE',
      `GatherElements: indices must have the rank of data (${r}), got indices ${formatShape(indices.shape)} (rank ${indices.shape.length}) for data ${formatShape(data.shape)}`,
    );
  }
  const axis = normalizeAxis(options.axis ?? 0, r, 'GatherElements');
  for (let i = 0; i < r; i++) {
    const n = indices.shape[i] as number;
    const m = data.shape[i] as number;
    if (i !== axis && n > m) {
      throw new TensorOpsError(
        'E_SHAPE',
        `GatherElements: indices dim ${i} is ${n}, larger than data dim ${i} (${m}): indices ${formatShape(indices.shape)} vs data ${formatShape(data.shape)} (axis=${axis}); off-axis dims must be <= data's`,
      );
    }
  }
  const axisSize = data.shape[axis] as number;
  const positions = decodeIndices(indices, [axisSize], {
    op: 'GatherElements',
    oob: options.oob ?? 'error',
    where: () => `(axis=${axis})`,
  });
  const strides = stridesOf(data.shape);
  const float64Offsets = sizeBetween(data.shape, 0) > 0x7fffffff;
  const innerSame = data.shape.every((d, i) => i <= axis || d === indices.shape[i]);
  return {
    outShape: [...indices.shape],
    itemBytes: dtypeSize(data.dtype),
    outer: sizeBetween(indices.shape, 0, axis),
    axisLength: indices.shape[axis] as number,
    inner: sizeBetween(indices.shape, axis + 1),
    axisSize,
    axisStride: strides[axis] as number,
    outerOffsets: offsetTable(indices.shape.slice(0, axis), strides.slice(0, axis), float64Offsets),
    innerOffsets: innerSame
      ? null
      : offsetTable(indices.shape.slice(axis + 1), strides.slice(axis + 1), float64Offsets),
    positions,
  };
}

/** Offsets (sum of multi-index x stride) of every multi-index of `dims` in C order, by odometer. */
function offsetTable(
  dims: readonly number[],
  strides: readonly number[],
  float64: boolean,
): Int32Array | Float64Array {
  const n = sizeBetween(dims, 0);
  const out = float64 ? new Float64Array(n) : new Int32Array(n);
  const counter = new Array<number>(dims.length).fill(0);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    out[i] = offset;
    for (let k = dims.length - 1; k >= 0; k--) {
      const stride = strides[k] as number;
      if ((counter[k] as number) + 1 < (dims[k] as number)) {
        counter[k] = (counter[k] as number) + 1;
        offset += stride;
        break;
      }
      offset -= (counter[k] as number) * stride;
      counter[k] = 0;
    }
  }
  return out;
}

/**
 * Takes elements of `data` at `indices` along `axis` (ONNX GatherElements-13, OpenVINO
 * GatherElements-6, numpy take_along_axis, torch.gather). Output shape = indices.shape; its
 * off-axis dims may be smaller than data's, never larger. Bit-exact for every dtype.
 *
 * @example
 * gatherElements(tensorFrom('int32', [2, 2], [1, 2, 3, 4]), tensorFrom('int64', [2, 2], [0, 1, 0, 0]))
 * // int32 [2, 2]: [1, 4, 1, 2]
 */
export function gatherElements(
  data: Tensor,
  indices: Tensor,
  options: GatherElementsOptions = {},
): Tensor {
  checkTensor(data, 'GatherElements: data');
  checkTensor(indices, 'GatherElements: indices');
  const walk = fusedWalk(data, indices, options);
  const plan = walk === null ? planGatherElements(data, indices, options) : null;
  const out = outputTensor('GatherElements', options, data.dtype, indices.shape, [data, indices]);
  if (out.data.byteLength === 0) return out;
  if (plan === null) {
    if (runFused(walk as ElementsWalk, data, indices, out)) return out;
    // An index is out of range, or no fused loop takes this case: the planned path's
    // decodeIndices throws the error (the first offending index in C order, with its position).
  }
  const planned = plan ?? planGatherElements(data, indices, options);
  runGatherElementsPlan(planned, data.data, out.data);
  return out;
}

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
  const { outer, axisLength, inner, axisSize, axisStride, outerOffsets, innerOffsets, positions } =
    plan;
  if (inner === 1) {
    copyInner1(
      outer,
      axisLength,
      axisSize,
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
    const tile = tileLength(axisSize, itemBytes);
    copyTiled(
      outer,
      axisLength,
      inner,
      axisStride,
      outerOffsets,
      innerOffsets,
      positions,
      s,
      d,
      words,
      tile,
    );
  }
}

/** Data rows up to this size are read whole before gathering from them: they stay in cache. */
const TOUCH_ROW_MAX_BYTES = 4 * 1024 * 1024;
/** Data bytes one tile of copyTiled spans across the axis: about an L2 cache. */
const TILE_BYTES = 1 << 20;

/**
 * Long items (long fixed-width strings): one memmove per element, from a plain view (faster than subarray()
 * for items near 256 bytes: docs/performance.md, "subarray() or a view").
 */
function copyLongElements(plan: GatherElementsPlan, src: Uint8Array, dst: Uint8Array): void {
  const { itemBytes, outer, axisLength, inner, axisStride, outerOffsets, innerOffsets, positions } =
    plan;
  const { buffer, byteOffset } = src;
  let d = 0;
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    for (let a = 0; a < axisLength; a++) {
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
 * inner = 1 (the axis is the last dim, or the dims after it are 1 in indices): each output row
 * picks elements at random inside one data row, an order that defeats the hardware prefetcher.
 * Reading the row once in order first (touchRange, as Gather's 'touch-rows') turns the random
 * reads into cache hits (measured: docs/performance.md). Skipped when the row is
 * too large to stay cached or has more cache lines than the output row reads elements.
 */
function copyInner1(
  outer: number,
  axisLength: number,
  axisSize: number,
  axisStride: number,
  itemBytes: number,
  outerOffsets: Int32Array | Float64Array,
  positions: Int32Array | Float64Array,
  bytes: Uint8Array,
  src: WordView,
  dst: WordView,
  words: number,
): void {
  const rowBytes = axisSize * axisStride * itemBytes;
  const touch =
    rowBytes <= TOUCH_ROW_MAX_BYTES && rowBytes <= axisLength * CACHE_LINE_BYTES && rowBytes > 0;
  let d = 0;
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    if (touch) touchRange(bytes, base * itemBytes, base * itemBytes + rowBytes);
    const end = d + axisLength;
    if (words === 1) {
      d = copyWords1(positions, d, end, base, axisStride, src, dst, d);
      continue;
    }
    for (; d < end; d++) {
      const p = positions[d] as number;
      if (p === ZERO_FILL) continue;
      const from = (base + p * axisStride) * words;
      const to = d * words;
      for (let k = 0; k < words; k++) dst[to + k] = src[from + k] as number;
    }
  }
}

/**
 * Elements per tile for copyTiled: a tile reads `tile` consecutive inner positions of every data
 * row along the axis, so its data (axisSize x tile items) stays in cache while every output row
 * takes from it. At least a cache line, so each tile still reads whole lines.
 */
function tileLength(axisSize: number, itemBytes: number): number {
  const rowBytes = axisSize * itemBytes;
  const fit = Math.floor(TILE_BYTES / Math.max(rowBytes, 1));
  return Math.max(fit, Math.ceil(CACHE_LINE_BYTES / itemBytes), 1);
}

/**
 * inner > 1 (an axis before the last): output element (o, a, j) reads data row positions[...]
 * at inner position j, a random row per element. Walking the output in column tiles keeps the
 * tile's slice of every data row in cache (faster than a plain C-order walk: docs/performance.md);
 * with few rows along the axis one tile covers all of inner,
 * which is the plain walk.
 */
function copyTiled(
  outer: number,
  axisLength: number,
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
    const first = o * axisLength * inner;
    for (let j0 = 0; j0 < inner; j0 += tile) {
      const j1 = Math.min(inner, j0 + tile);
      for (let a = 0, row = first; a < axisLength; a++, row += inner) {
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
          const from = (base + p * axisStride + off) * words;
          const to = (row + j) * words;
          for (let k = 0; k < words; k++) dst[to + k] = src[from + k] as number;
        }
      }
    }
  }
}

/**
 * The case where index decoding is fused into the copy: int32/int64 indices, oob 'error', items
 * of 1, 2, 4 or 8 bytes, a data tensor under 2^31 elements and inner dims equal to data's. Each
 * index is read where the copy needs it instead of being decoded into a positions array first:
 * for [4096, 4096] that array is 64 MB of fresh pages, written once and read once, measured as
 * more than half of the whole call (docs/performance.md). Null when the case is not covered.
 */
export function fusedWalk(
  data: Tensor,
  indices: Tensor,
  options: GatherElementsOptions,
): ElementsWalk | null {
  if ((options.oob ?? 'error') !== 'error') return null;
  if (indices.dtype !== 'int64' && indices.dtype !== 'int32') return null;
  const r = data.shape.length;
  if (r === 0 || indices.shape.length !== r) return null;
  const axis = normalizeAxis(options.axis ?? 0, r, 'GatherElements');
  for (let i = 0; i < r; i++) {
    const n = indices.shape[i] as number;
    const m = data.shape[i] as number;
    if (i === axis ? false : i < axis ? n > m : n !== m) return null;
  }
  const itemBytes = dtypeSize(data.dtype);
  if (sizeBetween(data.shape, 0) > 0x7fffffff || ![1, 2, 4, 8].includes(itemBytes)) return null;
  const strides = stridesOf(data.shape);
  return {
    itemBytes,
    indexBytes: indices.dtype === 'int64' ? 8 : 4,
    outer: sizeBetween(indices.shape, 0, axis),
    axisLength: indices.shape[axis] as number,
    inner: sizeBetween(indices.shape, axis + 1),
    axisSize: data.shape[axis] as number,
    outerOffsets: offsetTable(indices.shape.slice(0, axis), strides.slice(0, axis), false),
  };
}

/**
 * Runs a fused walk into `out`: the wasm kernel when it is available (the faster), else the
 * JavaScript loops below (one-word items, 4-byte aligned indices), else false so that the caller
 * takes the planned path. Also false when an index is out of range; `out` is then partly
 * written, which is why `out` is documented as unspecified after a throw.
 */
function runFused(walk: ElementsWalk, data: Tensor, indices: Tensor, out: Tensor): boolean {
  const wasm = gatherElementsWasm(walk, data.data, indices.data, out.data);
  if (wasm !== 'unsupported') return wasm === 'done';
  const { itemBytes, outer, axisLength, inner, axisSize, outerOffsets } = walk;
  const width = wordWidth(itemBytes, data.data, out.data);
  if (itemBytes !== width || indices.data.byteOffset % 4 !== 0) return false;
  const idx = new Int32Array(
    indices.data.buffer,
    indices.data.byteOffset,
    indices.data.byteLength >>> 2,
  );
  const src = wordView(data.data, width);
  const dst = wordView(out.data, width);
  const int64Indices = walk.indexBytes === 8;
  // Plain arguments, not an object: see runGatherElementsPlan. The data's axis stride is inner.
  return inner === 1
    ? fusedInner1(
        outer,
        axisLength,
        axisSize,
        1,
        outerOffsets,
        data.data,
        idx,
        int64Indices,
        src,
        dst,
      )
    : fusedTiled(
        outer,
        axisLength,
        inner,
        axisSize,
        inner,
        outerOffsets,
        idx,
        int64Indices,
        src,
        dst,
        tileLength(axisSize, itemBytes),
      );
}

/**
 * copyInner1 reading int32 (int64Indices false) or int64 (int64Indices true, as int32 pairs) indices in place.
 * Eight indices are checked and eight loads issued before their stores, so eight cache misses
 * overlap (as copy.ts's copyWords1). An index is valid when its high word is the sign extension of
 * its low word (it fits in int32) and `p = lo + (lo < 0 ? bound : 0)` is in [0, bound), which
 * `(bound - 1 - p) | p` tests with one sign bit. Returns false at the first group holding an
 * invalid index.
 */
function fusedInner1(
  outer: number,
  axisLength: number,
  axisSize: number,
  axisStride: number,
  outerOffsets: Int32Array | Float64Array,
  bytes: Uint8Array,
  idx: Int32Array,
  int64Indices: boolean,
  src: WordView,
  dst: WordView,
): boolean {
  const itemBytes = bytes.byteLength / src.length;
  const rowBytes = axisSize * axisStride * itemBytes;
  const touch =
    rowBytes <= TOUCH_ROW_MAX_BYTES && rowBytes <= axisLength * CACHE_LINE_BYTES && rowBytes > 0;
  const bound = axisSize;
  const last = bound - 1;
  const step = int64Indices ? 2 : 1;
  let d = 0;
  for (let o = 0; o < outer; o++) {
    const base = outerOffsets[o] as number;
    if (touch) touchRange(bytes, base * itemBytes, base * itemBytes + rowBytes);
    const end = d + axisLength;
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

/** copyTiled reading int32/int64 indices in place (see fusedInner1); false at an invalid index. */
function fusedTiled(
  outer: number,
  axisLength: number,
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
    const first = o * axisLength * inner;
    for (let j0 = 0; j0 < inner; j0 += tile) {
      const j1 = Math.min(inner, j0 + tile);
      for (let a = 0, row = first; a < axisLength; a++, row += inner) {
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
