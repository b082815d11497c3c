// The checks and the walk geometry that the planned and the fused paths of GatherElements share.
import { CACHE_LINE_BYTES, TOUCH_ROW_MAX_BYTES } from '../copy.js';
import { TensorOpsError } from '../errors.js';
import { formatShape, normalizeAxis, type Shape, sizeBetween, stridesOf } from '../shape.js';

/**
 * The output-order walk [outer, indicesAxisSize, inner] over indices.shape. Output element
 * d = (o * indicesAxisSize + a) * inner + j reads data element
 * `outerOffsets[o] + position * axisStride + (inner offset of j)`.
 */
export interface ElementsGeometry {
  readonly axis: number;
  /** prod(indices.shape[:axis]). */
  readonly outer: number;
  /** indices.shape[axis] (the output's length along the axis). */
  readonly indicesAxisSize: number;
  /** prod(indices.shape[axis+1:]). */
  readonly inner: number;
  /** data.shape[axis]: positions along the axis lie in [0, axisSize). */
  readonly axisSize: number;
  /** Data elements between neighbours along the axis: prod(data.shape[axis+1:]). */
  readonly axisStride: number;
  /** True when indices' dims after the axis equal data's, so inner position j is data's j. */
  readonly innerSame: boolean;
}

/**
 * Checks the shapes GatherElements takes (rank >= 1, equal ranks, a valid axis, off-axis dims of
 * indices no larger than data's) and gives the walk over them. Throws E_SHAPE / E_AXIS.
 */
export function elementsGeometry(
  dataShape: Shape,
  indicesShape: Shape,
  axisOption: number | undefined,
): ElementsGeometry {
  const r = dataShape.length;
  if (r === 0) {
    throw new TensorOpsError('E_SHAPE', 'GatherElements: data must have rank >= 1, got a scalar');
  }
  if (indicesShape.length !== r) {
    throw new TensorOpsError(
      'E_SHAPE',
      `GatherElements: indices must have the rank of data (${r}), got indices ${formatShape(indicesShape)} (rank ${indicesShape.length}) for data ${formatShape(dataShape)}`,
    );
  }
  const axis = normalizeAxis(axisOption ?? 0, r, 'GatherElements');
  for (let i = 0; i < r; i++) {
    const n = indicesShape[i] as number;
    const m = dataShape[i] as number;
    if (i !== axis && n > m) {
      throw new TensorOpsError(
        'E_SHAPE',
        `GatherElements: indices dim ${i} is ${n}, larger than data dim ${i} (${m}): indices ${formatShape(indicesShape)} vs data ${formatShape(dataShape)} (axis=${axis}); off-axis dims must be <= data's`,
      );
    }
  }
  return {
    axis,
    outer: sizeBetween(indicesShape, 0, axis),
    indicesAxisSize: indicesShape[axis] as number,
    inner: sizeBetween(indicesShape, axis + 1),
    axisSize: dataShape[axis] as number,
    axisStride: sizeBetween(dataShape, axis + 1),
    innerSame: dataShape.every((d, i) => i <= axis || d === indicesShape[i]),
  };
}

/**
 * Data element offset of each position of indices.shape[:axis] (C order) when `after` is
 * false, else of each position of indices.shape[axis+1:]; as float64 when data has 2^31 elements
 * or more.
 */
export function offsetTable(
  dataShape: Shape,
  indicesShape: Shape,
  axis: number,
  after: boolean,
): Int32Array | Float64Array {
  const strides = stridesOf(dataShape);
  const float64 = sizeBetween(dataShape, 0) > 0x7fffffff;
  const dims = after ? indicesShape.slice(axis + 1) : indicesShape.slice(0, axis);
  return odometer(dims, after ? strides.slice(axis + 1) : strides.slice(0, axis), float64);
}

/** Offsets (sum of multi-index x stride) of every multi-index of `dims` in C order. */
function odometer(
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

/** Data bytes one column tile spans across the axis: about an L2 cache. */
const TILE_BYTES = 1 << 20;

/**
 * Elements per column tile when inner > 1: a tile reads `tile` consecutive inner positions of
 * every data row along the axis, so its data (axisSize x tile items) stays in cache while every
 * output row takes from it. At least a cache line, so each tile still reads whole lines.
 */
export function tileLength(axisSize: number, itemBytes: number): number {
  const rowBytes = axisSize * itemBytes;
  const fit = Math.floor(TILE_BYTES / Math.max(rowBytes, 1));
  return Math.max(fit, Math.ceil(CACHE_LINE_BYTES / itemBytes), 1);
}

/**
 * inner = 1: each output row picks elements at random inside one data row, an order that defeats
 * the hardware prefetcher; reading the row once in order first (touchRange) turns the random reads
 * into cache hits. The row's bytes when that pays, else 0: not when the row
 * is too large to stay cached or has more cache lines than the output row reads elements.
 */
export function touchedRowBytes(
  axisSize: number,
  axisStride: number,
  itemBytes: number,
  indicesAxisSize: number,
): number {
  const rowBytes = axisSize * axisStride * itemBytes;
  return rowBytes <= TOUCH_ROW_MAX_BYTES && rowBytes <= indicesAxisSize * CACHE_LINE_BYTES
    ? rowBytes
    : 0;
}
