import { type Tensor, tensorFrom } from '@tensorops/core';
import { describe } from 'vitest';
import { itRefusesBadTensors } from '../../../test/bad-tensors.js';
import { beamSequences, decodeBeams } from '../src/beams.js';
import { gatherTree } from '../src/gather-tree/index.js';

const step = tensorFrom('int32', [2, 1, 2], [1, 2, 3, 4]);
const parents = tensorFrom('int32', [2, 1, 2], [0, 0, 1, 0]);
const lengths = tensorFrom('int32', [1], [2]);

// docs/design.md §2.2: each input, and the out option, in turn.
const ENTRY_POINTS: ReadonlyArray<readonly [string, (t: Tensor) => unknown]> = [
  ['gatherTree step_ids', (t) => gatherTree(t, parents, lengths, 0)],
  ['gatherTree parent_ids', (t) => gatherTree(step, t, lengths, 0)],
  ['gatherTree max_seq_len', (t) => gatherTree(step, parents, t, 0)],
  ['gatherTree out', (t) => gatherTree(step, parents, lengths, 0, { out: t })],
  ['decodeBeams step_ids', (t) => decodeBeams(t, parents, lengths, 0)],
  ['beamSequences ids', (t) => beamSequences(t, 0)],
];

describe('gather-tree refuses a tensor with the wrong bytes, dims or dtype', () => {
  itRefusesBadTensors(ENTRY_POINTS);
});
