// GatherTree's value errors, naming the element of the input that caused them.
import {
  createTensor,
  dtypeSize,
  formatPosition,
  type Tensor,
  TensorOpsError,
  tensorValues,
} from '@tensorops/core';
import { show } from '../end-token.js';
import { type Context, OP } from './context.js';

/** The error for the parent at parent_ids[t, b, s], met while tracing beam k of batch b. */
export function parentError(
  ctx: Context,
  t: number,
  b: number,
  s: number,
  k: number,
): TensorOpsError {
  const { B, K, parentIds } = ctx;
  const flat = (t * B + b) * K + s;
  const v = elementAt(parentIds, flat);
  const where = `parent_ids${formatPosition(flat, parentIds.shape)} (tracing beam ${k} of batch ${b})`;
  if (typeof v === 'number' && !Number.isInteger(v)) {
    return new TensorOpsError(
      'E_VALUE',
      `${OP}: parent_ids value ${show(v)} at ${where} is not an integer`,
    );
  }
  return new TensorOpsError(
    'E_INDEX_RANGE',
    `${OP}: parent ${show(v)} out of range [0, ${K - 1}] at ${where}`,
  );
}

/** The error for a non-integral float step id that would reach the output at [t, b, k]. */
export function stepError(
  ctx: Context,
  t: number,
  b: number,
  k: number,
  v: number,
): TensorOpsError {
  const { B, K, lengths, parents, stepIds } = ctx;
  // Re-trace the beam (its parents are already validated) to name the element actually read.
  let s = k;
  for (let level = (lengths[b] as number) - 1; level > t; level--) {
    s = parents[(level * B + b) * K + s] as number;
  }
  const flat = (t * B + b) * K + s;
  return new TensorOpsError(
    'E_VALUE',
    `${OP}: step_ids value ${show(v)} at step_ids${formatPosition(flat, stepIds.shape)} is not an integer (float step ids must hold integral values)`,
  );
}

function elementAt(t: Tensor, flat: number): number | bigint {
  const size = dtypeSize(t.dtype);
  const one = createTensor(t.dtype, [], t.data.slice(flat * size, (flat + 1) * size));
  return tensorValues(one)[0] as number | bigint;
}
