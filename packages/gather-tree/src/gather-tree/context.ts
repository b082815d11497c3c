// What GatherTree's walks and passes share: the op's name and the converted inputs.
import type { Tensor } from '@tensorops/core';

export const OP = 'GatherTree';

/** What a backward walk reads: the converted lengths and parents. */
export interface WalkInput {
  readonly T: number;
  readonly B: number;
  readonly K: number;
  /** Clamped max_seq_len per batch entry. */
  readonly lengths: Int32Array;
  /** Parent ids as int32; anything outside [0, K) reads as out of range through `>>> 0`. */
  readonly parents: Int32Array;
}

/** The inputs of one call, converted once (inputs.ts), and the tensors errors name. */
export interface Context extends WalkInput {
  readonly parentIds: Tensor;
  readonly stepIds: Tensor;
}
