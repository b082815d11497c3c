import { checkTensor, checkTensorLayout } from './check-tensor.js';
import {
  copyElement,
  LONG_BLOCK_BYTES,
  touchBlocks,
  touchGroupSize,
  type WordView,
  wordView,
  wordWidth,
} from './copy.js';
import { dtypeSize } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { decodeIndices, type OobMode, ZERO_FILL } from './indices.js';
import { formatShape, type Shape, sizeBetween } from './shape.js';
import { type OutputOption, outputTensor, type Tensor } from './tensor.js';

export interface GatherNDOptions extends OutputOption {
  /** Leading dims shared by data and indices, in [0, min(r, q) - 1]. Default 0. */
  readonly batchDims?: number;
  /** Out-of-range indices: 'error' (default) or 'zero' to fill the whole slice with zeros. */
  readonly oob?: OobMode;
  /**
   * OpenVINO GatherND-5's output shape: the batch dims fused into one,
   * [prod(indices.shape[:B])] + indices.shape[B:-1] + data.shape[B+k:]. Same bytes, other shape.
   * Default false (ONNX GatherND-13 / OpenVINO GatherND-8: indices.shape[:-1] + data.shape[B+k:]).
   */
  readonly flattenBatch?: boolean;
}

/**
 * GatherND as a list of slice copies: output slice t (sliceBytes long, in C order) is data slice
 * `slices[t]`, i.e. the bytes [slices[t] * sliceBytes, (slices[t] + 1) * sliceBytes) of data, or
 * zeros when it is ZERO_FILL. Pure: no bytes of `data` are needed to plan, which lets an executor
 * read only the slices it copies.
 */
export interface GatherNDPlan {
  readonly outShape: Shape;
  /** prod(data.shape[B+k:]) x item size. */
  readonly sliceBytes: number;
  /** Source slice per output slice (units of sliceBytes), or ZERO_FILL. */
  readonly slices: Int32Array | Float64Array;
}

export function planGatherND(
  data: Pick<Tensor, 'dtype' | 'shape'>,
  indices: Tensor,
  options: GatherNDOptions = {},
): GatherNDPlan {
  checkTensorLayout(data, 'GatherND: data');
  checkTensor(indices, 'GatherND: indices');
  const r = data.shape.length;
  const q = indices.shape.length;
  if (r === 0) {
    throw new TensorOpsError('E_SHAPE', 'GatherND: data must have rank >= 1, got a scalar');
  }
  if (q === 0) {
    throw new TensorOpsError('E_SHAPE', 'GatherND: indices must have rank >= 1, got a scalar');
  }
  const b = options.batchDims ?? 0;
  const limit = Math.min(r, q);
  if (!Number.isInteger(b) || b < 0 || b >= limit) {
    throw new TensorOpsError(
      'E_BATCH_DIMS',
      `GatherND: batch_dims ${b} out of range [0, ${limit - 1}] for data rank ${r} and indices rank ${q}`,
    );
  }
  for (let i = 0; i < b; i++) {
    if (data.shape[i] !== indices.shape[i]) {
      throw new TensorOpsError(
        'E_SHAPE',
        `GatherND: batch dims differ: data ${formatShape(data.shape)} vs indices ${formatShape(indices.shape)} at dim ${i} (batch_dims=${b})`,
      );
    }
  }
  const k = indices.shape[q - 1] as number;
  if (k < 1 || k > r - b) {
    throw new TensorOpsError(
      'E_SHAPE',
      `GatherND: indices.shape[-1] is ${k}, out of range [1, ${r - b}] for data ${formatShape(data.shape)} with batch_dims=${b}`,
    );
  }

  const bounds = data.shape.slice(b, b + k);
  const positions = decodeIndices(indices, bounds, {
    op: 'GatherND',
    oob: options.oob ?? 'error',
    where: (c) => `(data axis ${b + c})`,
  });

  const batch = sizeBetween(indices.shape, 0, b);
  const perBatch = sizeBetween(indices.shape, b, q - 1);
  const slicesPerBatch = sizeBetween(data.shape, b, b + k);
  // Strides of the k indexed dims, in slices.
  const strides = new Array<number>(k);
  for (let c = k - 1, s = 1; c >= 0; c--) {
    strides[c] = s;
    s *= bounds[c] as number;
  }
  const float64 = batch * slicesPerBatch > 0x7fffffff;
  const slices = float64 ? new Float64Array(batch * perBatch) : new Int32Array(batch * perBatch);
  let t = 0;
  for (let bi = 0; bi < batch; bi++) {
    const batchBase = bi * slicesPerBatch;
    for (let j = 0; j < perBatch; j++, t++) {
      let slice = batchBase;
      const first = t * k;
      for (let c = 0; c < k; c++) {
        const p = positions[first + c] as number;
        if (p === ZERO_FILL) {
          slice = ZERO_FILL;
          break;
        }
        slice += p * (strides[c] as number);
      }
      slices[t] = slice;
    }
  }

  const tail = data.shape.slice(b + k);
  const outShape =
    options.flattenBatch === true && b > 0
      ? [batch, ...indices.shape.slice(b, q - 1), ...tail]
      : [...indices.shape.slice(0, q - 1), ...tail];
  return { outShape, sliceBytes: sizeBetween(tail, 0) * dtypeSize(data.dtype), slices };
}

/**
 * Gathers slices of `data` addressed by the index tuples in the last dim of `indices`
 * (ONNX GatherND-13, OpenVINO GatherND-8, tf.gather_nd with batch_dims; `flattenBatch` for
 * OpenVINO GatherND-5). Output shape: indices.shape[:-1] + data.shape[batchDims + k:] with
 * k = indices.shape[-1]. Bit-exact for every dtype.
 *
 * @example
 * gatherND(tensorFrom('int32', [2, 2], [0, 1, 2, 3]), tensorFrom('int64', [2, 2], [0, 0, 1, 1]))
 * // int32 [2]: [0, 3]
 */
export function gatherND(data: Tensor, indices: Tensor, options: GatherNDOptions = {}): Tensor {
  checkTensor(data, 'GatherND: data');
  const plan = planGatherND(data, indices, options);
  const out = outputTensor('GatherND', options, data.dtype, plan.outShape, [data, indices]);
  if (out.data.byteLength === 0) return out;
  runGatherNDPlan(plan, data.data, out.data);
  return out;
}

/** Copies the planned slices from `src` (the whole data bytes) into `dst` (zeroed, output-sized). */
export function runGatherNDPlan(plan: GatherNDPlan, src: Uint8Array, dst: Uint8Array): void {
  const { sliceBytes, slices } = plan;
  if (sliceBytes >= LONG_BLOCK_BYTES) {
    // A plain view constructor, not subarray(): faster for short slices on Node 20, the same
    // for long ones.
    const { buffer, byteOffset } = src;
    for (let t = 0, d = 0; t < slices.length; t++, d += sliceBytes) {
      const s = slices[t] as number;
      if (s === ZERO_FILL) continue;
      dst.set(new Uint8Array(buffer, byteOffset + s * sliceBytes, sliceBytes), d);
    }
    return;
  }
  const width = wordWidth(sliceBytes, src, dst);
  const words = sliceBytes / width;
  const s = wordView(src, width);
  const d = wordView(dst, width);
  if (src.byteLength <= TOUCH_MIN_DATA_BYTES) {
    copyShortSlices(slices, s, d, words, 0, slices.length);
    return;
  }
  // Short slices from a large source: load a group's cache lines in a short loop first (many
  // misses in flight at once), then copy from cache; longer slices gain
  // nothing (memmove and the prefetcher already overlap their lines).
  const group = touchGroupSize(sliceBytes);
  for (let t0 = 0; t0 < slices.length; t0 += group) {
    const t1 = Math.min(slices.length, t0 + group);
    touchBlocks(src, slices, t0, t1, 0, sliceBytes, ZERO_FILL);
    copyShortSlices(slices, s, d, words, t0, t1);
  }
}

/** Sources up to this size are likely cached already: no touch pass. */
const TOUCH_MIN_DATA_BYTES = 512 * 1024;

/** Copies output slices [from, to) word by word. */
function copyShortSlices(
  slices: Int32Array | Float64Array,
  src: WordView,
  dst: WordView,
  words: number,
  from: number,
  to: number,
): void {
  if (words === 1) {
    for (let t = from; t < to; t++) {
      const s = slices[t] as number;
      if (s !== ZERO_FILL) dst[t] = src[s] as number;
    }
    return;
  }
  for (let t = from, d = from * words; t < to; t++, d += words) {
    const s = slices[t] as number;
    if (s === ZERO_FILL) continue;
    copyElement(src, s * words, dst, d, words);
  }
}
