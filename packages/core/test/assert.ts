import { expect } from 'vitest';
import { hex } from '../../../test/hex.js';
import { isTensorOpsError } from '../src/errors.js';
import type { Tensor } from '../src/tensor.js';
import type { RefResult } from './reference-elements-nd.js';

export { hex };

/** The code and message of the TensorOpsError `fn` throws; fails if it throws nothing or else. */
export function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (isTensorOpsError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a TensorOpsError, nothing was thrown');
}

/** `run()` gives the reference's bytes and shape, or fails with its exact out-of-range message. */
export function expectMatchesReference(
  run: () => Tensor,
  ref: RefResult,
  dtype: Tensor['dtype'],
): void {
  if (ref.ok) {
    const out = run();
    expect(out.dtype).toBe(dtype);
    expect(out.shape).toEqual(ref.tensor.shape);
    expect(hex(out.data)).toBe(hex(ref.tensor.data));
    return;
  }
  expect(thrown(run)).toEqual({ code: 'E_INDEX_RANGE', message: ref.message });
}
