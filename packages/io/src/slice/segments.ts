// Where the bytes of a slice lie in a C-order tensor: strided runs of consecutive bytes, in the
// result's order. Axes at the end that the slice keeps whole form one block; the axis before them
// extends the block to a run when it steps by 1. The last ranging axis before that is the stride
// of a strided run, and every position of the axes before it starts one, so there are at most as
// many strided runs as elements in the result, and the work is linear in them. Pure.

import { type Dtype, dtypeSize, type Shape, type Tensor } from '@tensorops/core';
import type { FittedSlice } from './fit.js';

/**
 * `count` runs of `length` bytes, the first at `position` (counted from the tensor's first byte),
 * each `stride` bytes (negative: backwards) after the one before.
 */
export interface ByteRun {
  readonly position: number;
  readonly length: number;
  readonly count: number;
  readonly stride: number;
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
  // The last outer axis that ranges strides each run (index axes after it only add to the
  // position); an odometer over the axes before it starts them, `position` following it.
  let last = outer - 1;
  while (last >= 0 && axes[last]?.kind !== 'range') last--;
  const count = last >= 0 ? (counts[last] as number) : 1;
  const stride = last >= 0 ? stepOf(last) : 0;
  const at = counts.map(() => 0);
  let position = runStart;
  for (let k = 0; k < outer; k++) position += firstOf(k);
  while (true) {
    yield { position, length: runBytes, count, stride };
    let k = last - 1;
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

/** Bytes a run copied element by element stays below; longer ones are copied with set(). */
const BYTEWISE = 64;

/**
 * Copies `count` runs of a strided run from `src` (where the tensor's byte `base` is at index 0)
 * to `out` from `at` on, packed.
 */
export function copyRun(
  src: Uint8Array,
  base: number,
  run: ByteRun,
  out: Uint8Array,
  at: number,
): void {
  const { length, count, stride } = run;
  let from = run.position - base;
  let to = at;
  for (let i = 0; i < count; i++, from += stride, to += length) {
    if (length < BYTEWISE) for (let b = 0; b < length; b++) out[to + b] = src[from + b] as number;
    else out.set(src.subarray(from, from + length), to);
  }
}

/** The slice of a tensor in memory (little-endian C order), copied run by run. */
export function sliceOfTensor(t: Tensor, fitted: FittedSlice): Tensor {
  const data = new Uint8Array(slicedBytes(fitted, t.dtype));
  let fill = 0;
  for (const run of sliceRuns(fitted, t.shape, t.dtype)) {
    copyRun(t.data, 0, run, data, fill);
    fill += run.length * run.count;
  }
  return { dtype: t.dtype, shape: [...fitted.shape], data };
}
