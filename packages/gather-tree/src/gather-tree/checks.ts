// GatherTree's input checks: tensors, ranks, shapes and dtypes (docs/design.md §3.4).
import {
  checkTensor,
  type Dtype,
  formatShape,
  isIntegerDtype,
  shapesEqual,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import { isStepDtype, STEP_DTYPES, type StepDtype } from '../end-token.js';
import { OP } from './context.js';

/**
 * Checks the three tensors of a call and gives [MAX_TIME, BATCH, BEAM] and the step dtype.
 * Throws E_SHAPE / E_DTYPE (and checkTensor's errors).
 */
export function checkGatherTree(
  stepIds: Tensor,
  parentIds: Tensor,
  maxSeqLen: Tensor,
): { readonly T: number; readonly B: number; readonly K: number; readonly dtype: StepDtype } {
  checkTensor(stepIds, `${OP}: step_ids`);
  checkTensor(parentIds, `${OP}: parent_ids`);
  checkTensor(maxSeqLen, `${OP}: max_seq_len`);
  const dtype = stepIds.dtype;
  if (stepIds.shape.length !== 3) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${OP}: step_ids must have rank 3 [MAX_TIME, BATCH, BEAM], got shape ${formatShape(stepIds.shape)}`,
    );
  }
  if (!isStepDtype(dtype)) {
    throw new TensorOpsError(
      'E_DTYPE',
      `${OP}: step_ids dtype ${dtype} not supported; expected one of ${STEP_DTYPES.join(', ')}`,
    );
  }
  checkIndexDtype(parentIds.dtype, 'parent_ids');
  checkIndexDtype(maxSeqLen.dtype, 'max_seq_len');
  const [T, B, K] = stepIds.shape as [number, number, number];
  if (!shapesEqual(parentIds.shape, stepIds.shape)) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${OP}: parent_ids shape ${formatShape(parentIds.shape)} must equal step_ids shape ${formatShape(stepIds.shape)}`,
    );
  }
  if (maxSeqLen.shape.length !== 1 || maxSeqLen.shape[0] !== B) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${OP}: max_seq_len shape ${formatShape(maxSeqLen.shape)} must be [BATCH] = [${B}]`,
    );
  }
  return { T, B, K, dtype };
}

function checkIndexDtype(dtype: Dtype, name: string): void {
  if (!isIntegerDtype(dtype) && dtype !== 'float32' && dtype !== 'float64') {
    throw new TensorOpsError(
      'E_DTYPE',
      `${OP}: ${name} must have an integer dtype or integral float32/float64 values, got ${dtype}`,
    );
  }
}
