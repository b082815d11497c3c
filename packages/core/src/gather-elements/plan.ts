// GatherElements' plan: the checked walk and the decoded positions, made without data's bytes.
import { checkTensor, checkTensorLayout } from '../check-tensor.js';
import { dtypeSize } from '../dtype.js';
import { decodeIndices, type OobMode } from '../indices.js';
import type { Shape } from '../shape.js';
import type { OutputOption, Tensor } from '../tensor.js';
import { type ElementsGeometry, elementsGeometry, offsetTable } from './geometry.js';

export interface GatherElementsOptions extends OutputOption {
  /** Axis of `data` to gather along, in [-r, r-1]. Default 0. */
  readonly axis?: number;
  /** Out-of-range indices: 'error' (default) or 'zero' to fill zeros. */
  readonly oob?: OobMode;
}

/**
 * GatherElements as an output-order walk [outer, indicesAxisSize, inner] over the indices shape.
 * Output element d = (o * indicesAxisSize + a) * inner + j comes from data element
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
  readonly indicesAxisSize: number;
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
  return planWithGeometry(
    data,
    indices,
    options,
    elementsGeometry(data.shape, indices.shape, options.axis),
  );
}

/** planGatherElements on inputs already checked, whose shapes gave `g`. */
export function planWithGeometry(
  data: Pick<Tensor, 'dtype' | 'shape'>,
  indices: Tensor,
  options: GatherElementsOptions,
  g: ElementsGeometry,
): GatherElementsPlan {
  const { axis, axisSize } = g;
  const positions = decodeIndices(indices, [axisSize], {
    op: 'GatherElements',
    oob: options.oob ?? 'error',
    where: () => `(axis=${axis})`,
  });
  return {
    outShape: [...indices.shape],
    itemBytes: dtypeSize(data.dtype),
    outer: g.outer,
    indicesAxisSize: g.indicesAxisSize,
    inner: g.inner,
    axisSize,
    axisStride: g.axisStride,
    outerOffsets: offsetTable(data.shape, indices.shape, axis, false),
    innerOffsets: g.innerSame ? null : offsetTable(data.shape, indices.shape, axis, true),
    positions,
  };
}
