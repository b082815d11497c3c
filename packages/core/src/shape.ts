import { TensorOpsError } from './errors.js';

export type Shape = readonly number[];

/** Number of elements; 1 for a scalar (rank 0). */
export function shapeSize(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Product of shape[start:end]. */
export function sizeBetween(shape: Shape, start: number, end: number = shape.length): number {
  let n = 1;
  for (let i = start; i < end; i++) n *= shape[i] as number;
  return n;
}

/** C-order strides in elements. */
export function stridesOf(shape: Shape): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i] as number;
  }
  return strides;
}

export function shapesEqual(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** `[2,3]` — the notation every message uses. */
export function formatShape(shape: Shape): string {
  return `[${shape.join(',')}]`;
}

/** The multi-index of a flat C-order position, for messages: `[1,0]`. */
export function formatPosition(flat: number, shape: Shape): string {
  const position = new Array<number>(shape.length);
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = shape[i] as number;
    position[i] = flat % d;
    flat = Math.floor(flat / d);
  }
  return `[${position.join(',')}]`;
}

/** Resolves a possibly negative axis against `rank`; the message names the valid range. */
export function normalizeAxis(axis: number, rank: number, op: string, name = 'axis'): number {
  if (!Number.isInteger(axis) || axis < -rank || axis > rank - 1) {
    const range = rank === 0 ? 'none (rank 0)' : `[${-rank}, ${rank - 1}]`;
    throw new TensorOpsError(
      'E_AXIS',
      `${op}: ${name} ${axis} out of range ${range} for rank ${rank}`,
    );
  }
  return axis < 0 ? axis + rank : axis;
}

/** Throws unless `shape` is a list of non-negative safe integers. */
export function checkShape(shape: Shape, what = 'shape'): void {
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new TensorOpsError(
        'E_SHAPE',
        `${what} ${formatShape(shape)} has an invalid dimension ${d}`,
      );
    }
  }
}
