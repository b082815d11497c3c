// A slow, literal GatherTree: the reference pseudo-code of OpenVINO's GatherTree-1 specification
// transcribed line by line on plain values, with the fixes docs/design.md §3.4 lists marked FIX.
// It shares no code with the kernel, so property tests can hold one against the other.
import { type ErrorCode, type Tensor, tensorValues } from '@tensorops/core';

export type Value = number | bigint;

export type ReferenceResult =
  | { readonly ok: true; readonly values: Value[] }
  | { readonly ok: false; readonly errors: ReadonlySet<ErrorCode> };

/**
 * `end` is the end token's exact value in the step dtype (bigint for int64/uint64). Instead of
 * stopping at the first error this collects the code of every error any beam meets, because the
 * kernel visits beams in another order and may report a different one first.
 */
export function referenceGatherTree(
  stepIds: Tensor,
  parentIds: Tensor,
  maxSeqLen: Tensor,
  end: Value,
): ReferenceResult {
  const [MAX_TIME, BATCH_SIZE, BEAM_WIDTH] = stepIds.shape as [number, number, number];
  const step = tensorValues(stepIds);
  const parentIdx = tensorValues(parentIds);
  const maxSeqLenValues = tensorValues(maxSeqLen);
  const isFloat = stepIds.dtype === 'float32' || stepIds.dtype === 'float64';
  const at = (t: number, b: number, k: number): number => (t * BATCH_SIZE + b) * BEAM_WIDTH + k;
  const errors = new Set<ErrorCode>();

  // final_idx[:, :, :] = end_token
  const finalIdx: Value[] = new Array<Value>(MAX_TIME * BATCH_SIZE * BEAM_WIDTH).fill(end);
  for (let batch = 0; batch < BATCH_SIZE; batch++) {
    const len = maxSeqLenValues[batch] as Value;
    if (typeof len === 'number' && !Number.isInteger(len)) {
      errors.add('E_VALUE');
      continue;
    }
    for (let beam = 0; beam < BEAM_WIDTH; beam++) {
      // max_sequence_in_beam = min(MAX_TIME, max_seq_len[batch])
      // FIX: also clamped at 0, and a beam of length 0 is left all end_token.
      const maxSequenceInBeam = len < 0 ? 0 : len > MAX_TIME ? MAX_TIME : Number(len);
      if (maxSequenceInBeam === 0) continue;

      // parent = parent_idx[max_sequence_in_beam - 1, batch, beam]
      let parent: Value = parentIdx[at(maxSequenceInBeam - 1, batch, beam)] as Value;
      // final_idx[max_sequence_in_beam - 1, batch, beam] = step_idx[max_sequence_in_beam - 1, batch, beam]
      finalIdx[at(maxSequenceInBeam - 1, batch, beam)] = step[
        at(maxSequenceInBeam - 1, batch, beam)
      ] as Value;

      let broken = false;
      // for level in reversed(range(max_sequence_in_beam - 1)):
      for (let level = maxSequenceInBeam - 2; level >= 0; level--) {
        // FIX: the parent about to be followed must be an integer in [0, BEAM_WIDTH).
        if (typeof parent === 'number' && !Number.isInteger(parent)) {
          errors.add('E_VALUE');
          broken = true;
          break;
        }
        if (parent < 0 || parent >= BEAM_WIDTH) {
          errors.add('E_INDEX_RANGE');
          broken = true;
          break;
        }
        const p = Number(parent);
        // final_idx[level, batch, beam] = step_idx[level, batch, parent]
        finalIdx[at(level, batch, beam)] = step[at(level, batch, p)] as Value;
        // parent = parent_idx[level, batch, parent]
        // FIX: parent_idx[0] is never read (the pseudo-code reads it and drops it).
        if (level > 0) parent = parentIdx[at(level, batch, p)] as Value;
      }
      if (broken) continue;

      // finished = False; for time in range(max_sequence_in_beam): ...
      let finished = false;
      for (let time = 0; time < maxSequenceInBeam; time++) {
        const i = at(time, batch, beam);
        if (finished) finalIdx[i] = end;
        // elif final_idx[time, batch, beam] == end_token: (numeric ==, so a float -0 matches 0)
        else if (finalIdx[i] === end) finished = true;
        // FIX (docs/design.md §3.4): float step ids that reach the output must be integral.
        else if (isFloat && !Number.isInteger(finalIdx[i])) errors.add('E_VALUE');
      }
    }
  }
  return errors.size > 0 ? { ok: false, errors } : { ok: true, values: finalIdx };
}
