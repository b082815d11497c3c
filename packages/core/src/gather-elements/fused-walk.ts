// The fused path of GatherElements: index decoding folded into the copy, in WebAssembly where it
// runs, else in the JavaScript loops of fused-loops.ts.
import { wordView, wordWidth } from '../copy.js';
import { dtypeSize } from '../dtype.js';
import { sizeBetween } from '../shape.js';
import type { Tensor } from '../tensor.js';
import { type ElementsWalk, gatherElementsWasm } from '../wasm/gather-elements.js';
import { fusedInner1, fusedTiled } from './fused-loops.js';
import {
  type ElementsGeometry,
  elementsGeometry,
  offsetTable,
  tileLength,
  touchedRowBytes,
} from './geometry.js';
import type { GatherElementsOptions } from './plan.js';

/**
 * The case where index decoding is fused into the copy: int32/int64 indices, oob 'error', items
 * of 1, 2, 4 or 8 bytes, a data tensor under 2^31 elements and inner dims equal to data's. Each
 * index is read where the copy needs it instead of being decoded into a positions array first:
 * for a large input that array is as many fresh pages as the output, written once and read once,
 * which costs more than the copy itself. Null when the case is not covered.
 * `geometry` is the checked shapes (elementsGeometry throws for bad ones).
 */
export function fusedWalk(
  data: Tensor,
  indices: Tensor,
  options: GatherElementsOptions,
  geometry: ElementsGeometry = elementsGeometry(data.shape, indices.shape, options.axis),
): ElementsWalk | null {
  if ((options.oob ?? 'error') !== 'error') return null;
  if (indices.dtype !== 'int64' && indices.dtype !== 'int32') return null;
  const itemBytes = dtypeSize(data.dtype);
  if (!geometry.innerSame || ![1, 2, 4, 8].includes(itemBytes)) return null;
  if (sizeBetween(data.shape, 0) > 0x7fffffff) return null;
  return {
    itemBytes,
    indexBytes: indices.dtype === 'int64' ? 8 : 4,
    outer: geometry.outer,
    indicesAxisSize: geometry.indicesAxisSize,
    inner: geometry.inner,
    axisSize: geometry.axisSize,
    outerOffsets: offsetTable(data.shape, indices.shape, geometry.axis, false),
  };
}

/**
 * Runs a fused walk into `out`: the wasm kernel when it is available (the faster), else the
 * JavaScript loops (one-word items, 4-byte aligned indices), else false so that the caller
 * takes the planned path. Also false when an index is out of range; `out` is then partly
 * written, which is why `out` is documented as unspecified after a throw.
 */
export function runFused(walk: ElementsWalk, data: Tensor, indices: Tensor, out: Tensor): boolean {
  const wasm = gatherElementsWasm(walk, data.data, indices.data, out.data);
  if (wasm !== 'unsupported') return wasm === 'done';
  const { itemBytes, outer, indicesAxisSize, inner, axisSize, outerOffsets } = walk;
  const width = wordWidth(itemBytes, data.data, out.data);
  if (itemBytes !== width || indices.data.byteOffset % 4 !== 0) return false;
  const idx = new Int32Array(
    indices.data.buffer,
    indices.data.byteOffset,
    indices.data.byteLength >>> 2,
  );
  const src = wordView(data.data, width);
  const dst = wordView(out.data, width);
  const int64Indices = walk.indexBytes === 8;
  // Plain arguments, not an object: see runGatherElementsPlan. The data's axis stride is inner.
  return inner === 1
    ? fusedInner1(
        outer,
        indicesAxisSize,
        axisSize,
        1,
        touchedRowBytes(axisSize, 1, itemBytes, indicesAxisSize),
        outerOffsets,
        data.data,
        idx,
        int64Indices,
        src,
        dst,
      )
    : fusedTiled(
        outer,
        indicesAxisSize,
        inner,
        axisSize,
        inner,
        outerOffsets,
        idx,
        int64Indices,
        src,
        dst,
        tileLength(axisSize, itemBytes),
      );
}
