import { LONG_BLOCK_BYTES, type WordView, wordView, wordWidth } from './copy.js';
import { dtypeSize } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { decodeIndices, type OobMode, ZERO_FILL } from './indices.js';
import { formatShape, normalizeAxis, type Shape, sizeBetween } from './shape.js';
import { createTensor, type Tensor } from './tensor.js';

export interface GatherOptions {
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
  const plan = planGather(data, indices, options);
  const out = createTensor(data.dtype, plan.outShape);
  if (out.data.byteLength > 0) runGatherPlan(plan, data.data, out.data);
  return out;
}

/** Copies the planned blocks from `src` (the whole data bytes) into `dst` (zeroed, output-sized). */
export function runGatherPlan(plan: GatherPlan, src: Uint8Array, dst: Uint8Array): void {
  const { blockBytes } = plan;
  if (blockBytes >= LONG_BLOCK_BYTES) {
    copyLongBlocks(plan, src, dst);
    return;
  }
  const width = wordWidth(blockBytes, src, dst);
  copyShortBlocks(plan, wordView(src, width), wordView(dst, width), blockBytes / width);
}

function copyLongBlocks(plan: GatherPlan, src: Uint8Array, dst: Uint8Array): void {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = plan;
  let d = 0;
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < outer; o++) {
      const rowBase = (b * outer + o) * axisSize;
      const idxBase = b * perBatch;
      for (let j = 0; j < perBatch; j++) {
        const p = positions[idxBase + j] as number;
        if (p !== ZERO_FILL) {
          const s = (rowBase + p) * blockBytes;
          dst.set(src.subarray(s, s + blockBytes), d);
        }
        d += blockBytes;
      }
    }
  }
}

function copyShortBlocks(plan: GatherPlan, src: WordView, dst: WordView, words: number): void {
  const { batch, outer, axisSize, perBatch, positions } = plan;
  let d = 0;
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < outer; o++) {
      const rowBase = (b * outer + o) * axisSize;
      const idxBase = b * perBatch;
      if (words === 1) {
        for (let j = 0; j < perBatch; j++) {
          const p = positions[idxBase + j] as number;
          if (p !== ZERO_FILL) dst[d] = src[rowBase + p] as number;
          d++;
        }
        continue;
      }
      for (let j = 0; j < perBatch; j++) {
        const p = positions[idxBase + j] as number;
        if (p !== ZERO_FILL) {
          const s = (rowBase + p) * words;
          for (let k = 0; k < words; k++) dst[d + k] = src[s + k] as number;
        }
        d += words;
      }
    }
  }
}
