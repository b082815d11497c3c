// GatherElements. An op too large for one file is a folder: its index.ts holds the op itself
// (checks, then dispatch) and re-exports the folder's public names, with one module per idea beside
// it. The op checks its inputs once and takes the fused path (fused-walk.ts) where it applies, else
// the plan (plan.ts) and its loops (run-plan.ts). Like every kernel it checks tensors and shapes
// before it reads data, allocates its output once (or writes the caller's `out`) and does no I/O;
// the fused path checks each index where it reads it, so a call that throws leaves `out`
// unspecified.
import { checkTensor } from '../check-tensor.js';
import { outputTensor, type Tensor } from '../tensor.js';
import { fusedWalk, runFused } from './fused-walk.js';
import { elementsGeometry } from './geometry.js';
import { type GatherElementsOptions, planWithGeometry } from './plan.js';
import { runGatherElementsPlan } from './run-plan.js';

export { fusedWalk } from './fused-walk.js';
export { type GatherElementsOptions, type GatherElementsPlan, planGatherElements } from './plan.js';
export { runGatherElementsPlan } from './run-plan.js';

/**
 * Takes elements of `data` at `indices` along `axis` (ONNX GatherElements-13, OpenVINO
 * GatherElements-6, numpy take_along_axis, torch.gather). Output shape = indices.shape; its
 * off-axis dims may be smaller than data's, never larger. Bit-exact for every dtype.
 *
 * @example
 * gatherElements(tensorFrom('int32', [2, 2], [1, 2, 3, 4]), tensorFrom('int64', [2, 2], [0, 1, 0, 0]))
 * // int32 [2, 2]: [1, 4, 1, 2]
 */
export function gatherElements(
  data: Tensor,
  indices: Tensor,
  options: GatherElementsOptions = {},
): Tensor {
  checkTensor(data, 'GatherElements: data');
  checkTensor(indices, 'GatherElements: indices');
  const geometry = elementsGeometry(data.shape, indices.shape, options.axis);
  const walk = fusedWalk(data, indices, options, geometry);
  const plan = walk === null ? planWithGeometry(data, indices, options, geometry) : null;
  const out = outputTensor('GatherElements', options, data.dtype, indices.shape, [data, indices]);
  if (out.data.byteLength === 0) return out;
  if (walk !== null && runFused(walk, data, indices, out)) return out;
  // An index is out of range, or no fused loop takes this case: the planned path's
  // decodeIndices throws the error (the first offending index in C order, with its position).
  runGatherElementsPlan(
    plan ?? planWithGeometry(data, indices, options, geometry),
    data.data,
    out.data,
  );
  return out;
}
