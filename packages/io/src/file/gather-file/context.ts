// What every strategy of a file gather reads: the plan, where the tensor sits in the file, and
// the sizes of the memory it may hold.

import type { Dtype, GatherPlan } from '@tensorops/core';
import type { StoredTensor, TensorFile } from '../stored.js';

/** Bytes of an output chunk where the caller sets no `chunkBytes`, for every file gather. */
export const DEFAULT_CHUNK_BYTES = 8 << 20;

export interface RunContext {
  readonly file: TensorFile;
  readonly stored: StoredTensor;
  readonly plan: GatherPlan;
  readonly dtype: Dtype;
  /** Absolute file offset of the tensor's first byte. */
  readonly offset: number;
  readonly chunkBytes: number;
  /** Sweep window: a multiple of the item size, so that windows start on whole units to swap. */
  readonly windowBytes: number;
  readonly concurrency: number;
  readonly swapUnit: number;
  readonly nbytes: number;
  /** Some positions are ZERO_FILL: core's kernel needs those output bytes zeroed beforehand. */
  readonly zeroFill: boolean;
}
