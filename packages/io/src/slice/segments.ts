// Where the bytes of a slice lie in a C-order tensor: the runs of consecutive bytes, in the
// result's order. Axes at the end that the slice keeps whole form one block; the axis before them
// extends the block to a run when it steps by 1. Every other picked position starts a run of its
// own, so the runs number at most the result's elements and the work is linear in them. Pure.

import { type Dtype, dtypeSize, type Shape, type Tensor } from '@tensorops/core';
import type { FittedSlice } from './fit.js';

/** `length` bytes at `position`, counted from the tensor's first byte. */
export interface ByteRun {
  readonly position: number;
  readonly length: number;
}

function product(values: readonly number[]): number {
  return values.reduce((a, b) => a * b, 1);
}

/** Bytes the result of `fitted` takes for items of `dtype`. */
export function slicedBytes(fitted: FittedSlice, dtype: Dtype): number {
  return product(fitted.shape) * dtypeSize(dtype);
}

/** The runs of a tensor of `shape` and `dtype` that `fitted` picks, in the result's order. */
export function* sliceRuns(
  fitted: FittedSlice,
  shape: Shape,
  dtype: Dtype,
): Generator<ByteRun, void, undefined> {
  if (slicedBytes(fitted, dtype) === 0) return;
  const { axes } = fitted;
  const strides: number[] = [];
  for (let k = shape.length - 1, s = dtypeSize(dtype); k >= 0; k--) {
    strides[k] = s;
    s *= shape[k] as number;
  }
  // Axes from `whole` on are kept whole: their bytes are one block.
  let whole = axes.length;
  while (whole > 0) {
    const a = axes[whole - 1];
    if (a?.kind !== 'range' || a.step !== 1 || a.start !== 0 || a.count !== shape[whole - 1]) {
      break;
    }
    whole--;
  }
  let runBytes = product(shape.slice(whole)) * dtypeSize(dtype);
  // The axis before them extends the block to a run when it steps forward by 1.
  let outer = whole;
  const before = axes[whole - 1];
  let runStart = 0;
  if (before?.kind === 'range' && before.step === 1) {
    outer = whole - 1;
    runStart = before.start * (strides[outer] as number);
    runBytes *= before.count;
  }
  const counts = axes.slice(0, outer).map((a) => (a.kind === 'range' ? a.count : 1));
  const firstOf = (k: number): number => {
    const a = axes[k];
    return (a?.kind === 'range' ? a.start : (a?.at ?? 0)) * (strides[k] as number);
  };
  const stepOf = (k: number): number => {
    const a = axes[k];
    return a?.kind === 'range' ? a.step * (strides[k] as number) : 0;
  };
  // An odometer over the outer axes; `position` follows it incrementally.
  const at = counts.map(() => 0);
  let position = runStart;
  for (let k = 0; k < outer; k++) position += firstOf(k);
  while (true) {
    yield { position, length: runBytes };
    let k = outer - 1;
    for (; k >= 0; k--) {
      const done = (at[k] as number) + 1;
      if (done < (counts[k] as number)) {
        at[k] = done;
        position += stepOf(k);
        break;
      }
      position -= stepOf(k) * (at[k] as number);
      at[k] = 0;
    }
    if (k < 0) return;
  }
}

/** The slice of a tensor in memory (little-endian C order), copied run by run. */
export function sliceOfTensor(t: Tensor, fitted: FittedSlice): Tensor {
  const data = new Uint8Array(slicedBytes(fitted, t.dtype));
  let fill = 0;
  for (const run of sliceRuns(fitted, t.shape, t.dtype)) {
    data.set(t.data.subarray(run.position, run.position + run.length), fill);
    fill += run.length;
  }
  return { dtype: t.dtype, shape: [...fitted.shape], data };
}
