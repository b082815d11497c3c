// GatherTree's input conversions: clamped lengths, parents as int32, aligned word views.
import { dtypeSize, type Tensor, TensorOpsError } from '@tensorops/core';
import { alignedView, valueView } from '@tensorops/core/internal';
import { show } from '../end-token.js';
import { OP } from './context.js';

/** max_seq_len clamped to [0, MAX_TIME]; 64-bit values are compared whole, never wrapped. */
export function clampLengths(maxSeqLen: Tensor, T: number): Int32Array {
  const B = maxSeqLen.shape[0] as number;
  const out = new Int32Array(B);
  const clamp = (v: number): number => Math.max(0, Math.min(v, T));
  const dtype = maxSeqLen.dtype;
  if (dtype === 'int64' || dtype === 'uint64') {
    const words = alignedView(maxSeqLen.data, Int32Array);
    for (let b = 0; b < B; b++) {
      const lo = (words[2 * b] as number) >>> 0;
      const hi = words[2 * b + 1] as number;
      if (dtype === 'int64' && hi < 0) out[b] = 0;
      else out[b] = hi !== 0 ? T : clamp(lo);
    }
    return out;
  }
  const values = valueView(maxSeqLen);
  for (let b = 0; b < B; b++) {
    const v = values[b] as number;
    if (!Number.isInteger(v)) {
      throw new TensorOpsError(
        'E_VALUE',
        `${OP}: max_seq_len value ${show(v)} at max_seq_len[${b}] is not an integer`,
      );
    }
    out[b] = clamp(v);
  }
  return out;
}

/**
 * Parent ids as an Int32Array the kernel can index directly. int32 and uint32 are viewed in
 * place (a uint32 >= 2^31 reads negative, which `p >>> 0 >= K` still rejects); other dtypes are
 * converted once, with -1 standing for every value outside [0, K) so that only a parent the
 * kernel actually follows raises the error.
 */
export function parentView(parentIds: Tensor, K: number): Int32Array {
  const dtype = parentIds.dtype;
  if (dtype === 'int32' || dtype === 'uint32') return alignedView(parentIds.data, Int32Array);
  const n = parentIds.data.byteLength / dtypeSize(dtype);
  const out = new Int32Array(n);
  if (dtype === 'int64' || dtype === 'uint64') {
    const words = alignedView(parentIds.data, Int32Array);
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i] as number;
      out[i] = words[2 * i + 1] === 0 && lo >>> 0 < K ? lo : -1;
    }
    return out;
  }
  const values = valueView(parentIds);
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    // `v >= 0 && v < K` is false for NaN; `v | 0` maps -0 to 0.
    out[i] = v >= 0 && v < K && Number.isInteger(v) ? v | 0 : -1;
  }
  return out;
}
