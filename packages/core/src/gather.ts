// Gather: the plan (shapes checked, indices decoded, the block copies to make, all without data's
// bytes) and its run over bytes, by a strategy picked from the plan's geometry. A name means one
// thing across core: `axisSize` is data's length along the axis in every plan, `indicesAxisSize`
// the indices' (and the output's).
import { checkTensor, checkTensorLayout } from './check-tensor.js';
import {
  CACHE_LINE_BYTES,
  copyElement,
  copyWords1,
  LONG_BLOCK_BYTES,
  TOUCH_ROW_MAX_BYTES,
  touchBlocks,
  touchGroupSize,
  touchRange,
  type WordView,
  wordView,
  wordWidth,
} from './copy.js';
import { dtypeSize } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { decodeIndices, type OobMode, ZERO_FILL } from './indices.js';
import { formatShape, normalizeAxis, type Shape, sizeBetween } from './shape.js';
import { type OutputOption, outputTensor, type Tensor } from './tensor.js';
import { gatherWasm } from './wasm/gather.js';

export interface GatherOptions extends OutputOption {
  /** Axis of `data` to gather along, in [-r, r-1]. Default 0. */
  readonly axis?: number;
  /** Leading dims shared by data and indices, in [-q, q] (negative counts from indices' rank). Default 0. */
  readonly batchDims?: number;
  /** Out-of-range indices: 'error' (default) or 'zero' to fill zeros. */
  readonly oob?: OobMode;
}

/**
 * Gather reduced to a 4-D view (after tfjs): data is [batch, outer, axisSize, block] and the
 * output [batch, outer, perBatch, block], so every case is a run of contiguous block copies.
 * Pure: no bytes of `data` are needed to plan, which lets an executor read only what it copies.
 */
export interface GatherPlan {
  readonly outShape: Shape;
  readonly batch: number;
  readonly outer: number;
  readonly axisSize: number;
  /** Indices per batch entry. */
  readonly perBatch: number;
  /** Bytes per copied block: prod(data.shape[axis+1:]) x item size. */
  readonly blockBytes: number;
  /** Non-negative positions along the axis, or ZERO_FILL. */
  readonly positions: Int32Array | Float64Array;
}

export function planGather(
  data: Pick<Tensor, 'dtype' | 'shape'>,
  indices: Tensor,
  options: GatherOptions = {},
): GatherPlan {
  checkTensorLayout(data, 'Gather: data');
  checkTensor(indices, 'Gather: indices');
  const r = data.shape.length;
  const q = indices.shape.length;
  if (r === 0)
    throw new TensorOpsError('E_SHAPE', 'Gather: data must have rank >= 1, got a scalar');
  const axis = normalizeAxis(options.axis ?? 0, r, 'Gather');
  const batchDims = normalizeBatchDims(options.batchDims ?? 0, r, q, axis);
  for (let i = 0; i < batchDims; i++) {
    if (data.shape[i] !== indices.shape[i]) {
      throw new TensorOpsError(
        'E_SHAPE',
        `Gather: batch dims differ: data ${formatShape(data.shape)} vs indices ${formatShape(indices.shape)} at dim ${i} (batch_dims=${batchDims})`,
      );
    }
  }
  const axisSize = data.shape[axis] as number;
  const positions = decodeIndices(indices, [axisSize], {
    op: 'Gather',
    oob: options.oob ?? 'error',
    where: () => `(axis=${axis})`,
  });
  return {
    outShape: [
      ...data.shape.slice(0, axis),
      ...indices.shape.slice(batchDims),
      ...data.shape.slice(axis + 1),
    ],
    batch: sizeBetween(data.shape, 0, batchDims),
    outer: sizeBetween(data.shape, batchDims, axis),
    axisSize,
    perBatch: sizeBetween(indices.shape, batchDims),
    blockBytes: sizeBetween(data.shape, axis + 1) * dtypeSize(data.dtype),
    positions,
  };
}

function normalizeBatchDims(batchDims: number, r: number, q: number, axis: number): number {
  const limit = Math.min(r, q);
  if (!Number.isInteger(batchDims) || batchDims < -limit || batchDims > limit) {
    throw new TensorOpsError(
      'E_BATCH_DIMS',
      `Gather: batch_dims ${batchDims} out of range [${-limit}, ${limit}] for data rank ${r} and indices rank ${q}`,
    );
  }
  const b = batchDims < 0 ? batchDims + q : batchDims;
  if (b > axis) {
    throw new TensorOpsError(
      'E_BATCH_DIMS',
      `Gather: batch_dims ${batchDims} must not exceed axis ${axis}`,
    );
  }
  return b;
}

/**
 * Gathers slices of `data` along `axis` at `indices` (ONNX Gather-13, OpenVINO Gather-7/8, numpy take).
 * Output shape: data.shape[:axis] + indices.shape[batchDims:] + data.shape[axis+1:]. Bit-exact for every dtype.
 *
 * @example
 * gather(tensorFrom('float32', [3, 2], [1, 2, 3, 4, 5, 6]), tensorFrom('int64', [2], [2, 0]))
 * // float32 [2, 2]: [5, 6, 1, 2]
 */
export function gather(data: Tensor, indices: Tensor, options: GatherOptions = {}): Tensor {
  checkTensor(data, 'Gather: data');
  const plan = planGather(data, indices, options);
  const out = outputTensor('Gather', options, data.dtype, plan.outShape, [data, indices]);
  if (out.data.byteLength === 0) return out;
  // The wasm kernel where the JS walk would read whole rows, which it does faster.
  // It reads positions unchecked, so they must hold no ZERO_FILL, which only oob 'error' guarantees.
  const strategy = gatherStrategy(plan);
  const wasm =
    (options.oob ?? 'error') === 'error' &&
    strategy === 'touch-rows' &&
    gatherWasm(plan, data.data, out.data);
  if (!wasm) runGatherPlan(plan, data.data, out.data, strategy);
  return out;
}

/**
 * How runGatherPlan walks the source (see the touch passes in copy.ts):
 * - 'plain': copy only; the source is small or sparsely read, or blocks are long enough for the
 *   hardware prefetcher.
 * - 'touch-rows': before gathering from one [axisSize, block] row, read the row once in order
 *   (a stream the prefetcher runs at full bandwidth), so the random reads that follow hit cache.
 *   For rows that fit in cache and that the gather reads densely.
 * - 'touch-groups': before copying a group of blocks, load each of their cache lines in a short
 *   loop that keeps many misses in flight. For random blocks from a large row.
 */
export type GatherStrategy = 'plain' | 'touch-rows' | 'touch-groups';

/** A row whose cache lines outnumber the lines the gather reads by more than this is not read whole. */
const TOUCH_ROW_SPARSITY = 8;
/** Rows larger than this are unlikely to be in cache: touch groups of blocks ahead of the copy. */
const TOUCH_GROUP_MIN_ROW_BYTES = 512 * 1024;
/** Longer blocks copy faster without the touch pass: memmove and the prefetcher overlap their lines. */
const TOUCH_GROUP_MAX_BLOCK_BYTES = 512;

/**
 * Blocks at least this long are copied with TypedArray.set (memmove); shorter ones word by word.
 * Twice copy.ts's LONG_BLOCK_BYTES: after a touch pass, 256-511 byte blocks copy faster
 * through the unrolled word loop than through set(), whose per-call cost dominates short blocks.
 */
const SET_MIN_BLOCK_BYTES = 2 * LONG_BLOCK_BYTES;

/** Picks the strategy from the plan's geometry (thresholds measured with `pnpm bench`). */
export function gatherStrategy(plan: GatherPlan): GatherStrategy {
  const { axisSize, perBatch, blockBytes } = plan;
  const rowBytes = axisSize * blockBytes;
  if (blockBytes === 0 || perBatch === 0) return 'plain';
  const linesRead = perBatch * Math.ceil(blockBytes / CACHE_LINE_BYTES);
  const rowLines = Math.ceil(rowBytes / CACHE_LINE_BYTES);
  if (rowBytes <= TOUCH_ROW_MAX_BYTES && rowLines <= linesRead * TOUCH_ROW_SPARSITY) {
    return 'touch-rows';
  }
  if (rowBytes > TOUCH_GROUP_MIN_ROW_BYTES && blockBytes <= TOUCH_GROUP_MAX_BLOCK_BYTES) {
    return 'touch-groups';
  }
  return 'plain';
}

/**
 * Copies the planned blocks from `src` (the whole data bytes) into `dst` (output-sized; zeroed
 * where ZERO_FILL positions must read as zeros, as every other byte is written).
 * `strategy` is for tests; by default gatherStrategy(plan) picks it.
 */
export function runGatherPlan(
  plan: GatherPlan,
  src: Uint8Array,
  dst: Uint8Array,
  strategy: GatherStrategy = gatherStrategy(plan),
): void {
  const { blockBytes } = plan;
  if (blockBytes >= SET_MIN_BLOCK_BYTES) {
    copyLongBlocks(plan, src, dst, strategy);
    return;
  }
  const width = wordWidth(blockBytes, src, dst);
  copyShortBlocks(plan, src, wordView(src, width), wordView(dst, width), width, strategy);
}

function copyLongBlocks(
  plan: GatherPlan,
  src: Uint8Array,
  dst: Uint8Array,
  strategy: GatherStrategy,
): void {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = plan;
  const group = strategy === 'touch-groups' ? touchGroupSize(blockBytes) : perBatch;
  let d = 0;
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < outer; o++) {
      const rowBase = (b * outer + o) * axisSize;
      const idxBase = b * perBatch;
      if (strategy === 'touch-rows') {
        touchRange(src, rowBase * blockBytes, (rowBase + axisSize) * blockBytes);
      }
      for (let j0 = 0; j0 < perBatch; j0 += group) {
        const from = idxBase + j0;
        const to = idxBase + Math.min(perBatch, j0 + group);
        if (strategy === 'touch-groups') {
          touchBlocks(src, positions, from, to, rowBase, blockBytes, ZERO_FILL);
        }
        for (let j = from; j < to; j++) {
          const p = positions[j] as number;
          if (p !== ZERO_FILL) {
            const s = (rowBase + p) * blockBytes;
            // Blocks here are >= SET_MIN_BLOCK_BYTES, where subarray() costs what a plain view
            // does.
            dst.set(src.subarray(s, s + blockBytes), d);
          }
          d += blockBytes;
        }
      }
    }
  }
}

function copyShortBlocks(
  plan: GatherPlan,
  bytes: Uint8Array,
  src: WordView,
  dst: WordView,
  width: number,
  strategy: GatherStrategy,
): void {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = plan;
  const words = blockBytes / width;
  const group = strategy === 'touch-groups' ? touchGroupSize(blockBytes) : perBatch;
  let d = 0;
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < outer; o++) {
      const rowBase = (b * outer + o) * axisSize;
      const idxBase = b * perBatch;
      if (strategy === 'touch-rows') {
        touchRange(bytes, rowBase * blockBytes, (rowBase + axisSize) * blockBytes);
      }
      for (let j0 = 0; j0 < perBatch; j0 += group) {
        const from = idxBase + j0;
        const to = idxBase + Math.min(perBatch, j0 + group);
        if (strategy === 'touch-groups') {
          touchBlocks(bytes, positions, from, to, rowBase, blockBytes, ZERO_FILL);
        }
        d =
          words === 1
            ? copyWords1(positions, from, to, rowBase, 1, src, dst, d)
            : copyWordsN(positions, from, to, rowBase, src, dst, d, words);
      }
    }
  }
}

function copyWordsN(
  positions: Int32Array | Float64Array,
  from: number,
  to: number,
  rowBase: number,
  src: WordView,
  dst: WordView,
  d: number,
  words: number,
): number {
  for (let j = from; j < to; j++, d += words) {
    const p = positions[j] as number;
    if (p !== ZERO_FILL) copyElement(src, (rowBase + p) * words, dst, d, words);
  }
  return d;
}
