// A parsed slice against a tensor's shape, as numpy applies basic indexing: `...` stands for as
// many full axes as the other items leave, missing trailing items are full axes, slice bounds are
// clipped to the axis (Python's slice.indices), an integer index must lie in [-size, size) and
// drops its axis. Pure; the work is linear in the rank and the number of items.

import { type Shape, TensorOpsError } from '@tensorops/core';
import type { Slice } from './parse.js';

/** What one axis of the stored tensor contributes: a fixed position, or `count` positions. */
export type AxisPick =
  | { readonly kind: 'index'; readonly at: number }
  | {
      readonly kind: 'range';
      readonly start: number;
      readonly step: number;
      readonly count: number;
    };

export interface FittedSlice {
  /** One pick per axis of the stored tensor. */
  readonly axes: readonly AxisPick[];
  /** The result's shape: the counts of the range picks, in order. */
  readonly shape: Shape;
}

/** `count` positions from `start` by `step` within [0, size), as numpy clips a slice. */
function clippedRange(
  size: number,
  start: number | undefined,
  stop: number | undefined,
  step: number,
): AxisPick {
  // Python's slice.indices: negative bounds count from the end, then clip to the axis; a
  // negative step walks from the last position down to before the first (-1).
  const low = step > 0 ? 0 : -1;
  const high = step > 0 ? size : size - 1;
  const clip = (v: number | undefined, fallback: number): number => {
    if (v === undefined) return fallback;
    const from = v < 0 ? v + size : v;
    return Math.max(low, Math.min(high, from));
  };
  const first = clip(start, step > 0 ? 0 : size - 1);
  const end = clip(stop, step > 0 ? size : -1);
  const span = step > 0 ? end - first : first - end;
  const count = span > 0 ? Math.floor((span - 1) / Math.abs(step)) + 1 : 0;
  return { kind: 'range', start: count === 0 ? 0 : first, step, count };
}

/**
 * The picks `slice` makes of a tensor of `shape`. Throws E_SHAPE when it indexes more axes than
 * the tensor has, E_INDEX_RANGE for an integer index outside its axis (naming axis and size).
 */
export function fitSlice(slice: Slice, shape: Shape): FittedSlice {
  const { items } = slice;
  const indexed = items.filter((i) => i.kind !== 'ellipsis').length;
  if (indexed > shape.length) {
    throw new TensorOpsError(
      'E_SHAPE',
      `slice: too many indices: the tensor has ${shape.length} dimension${shape.length === 1 ? '' : 's'}, the slice indexes ${indexed}`,
    );
  }
  const axes: AxisPick[] = [];
  const full = (size: number): AxisPick => clippedRange(size, undefined, undefined, 1);
  for (const item of items) {
    if (item.kind === 'ellipsis') {
      for (let k = indexed; k < shape.length; k++) axes.push(full(shape[axes.length] as number));
      continue;
    }
    const axis = axes.length;
    const size = shape[axis] as number;
    if (item.kind === 'range') {
      axes.push(clippedRange(size, item.start, item.stop, item.step));
      continue;
    }
    const at = item.index < 0 ? item.index + size : item.index;
    if (at < 0 || at >= size) {
      throw new TensorOpsError(
        'E_INDEX_RANGE',
        `slice: index ${item.text} is out of bounds for axis ${axis} with size ${size}`,
      );
    }
    axes.push({ kind: 'index', at });
  }
  while (axes.length < shape.length) axes.push(full(shape[axes.length] as number));
  const out: number[] = [];
  for (const a of axes) if (a.kind === 'range') out.push(a.count);
  return { axes, shape: out };
}

/** The first `n` entries along the result's first axis (`--head N` after a slice: `[:N]` of it). */
export function firstEntries(fitted: FittedSlice, n: number): FittedSlice {
  const at = fitted.axes.findIndex((a) => a.kind === 'range');
  if (at < 0) {
    throw new TensorOpsError('E_SHAPE', 'slice: too many indices: the result has 0 dimensions');
  }
  const axes = fitted.axes.map((a, k) =>
    k === at && a.kind === 'range' ? { ...a, count: Math.min(a.count, n) } : a,
  );
  return { axes, shape: [Math.min(fitted.shape[0] as number, n), ...fitted.shape.slice(1)] };
}

/** True when the slice keeps every element in place (`[...]`, `[:]`, `[()]` on a 0-d tensor). */
export function keepsAll(fitted: FittedSlice, shape: Shape): boolean {
  return fitted.axes.every(
    (a, k) => a.kind === 'range' && a.step === 1 && a.count === shape[k] && a.start === 0,
  );
}
