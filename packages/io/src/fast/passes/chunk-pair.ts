// Where the blocks of a pass over reused chunks go: two runs of the ring of output chunks in the
// arena (from the pass's first chunk to the ring's end, then from the ring's start), the first
// `split` blocks to one and the rest to the other.

import { ZERO_FILL } from '@tensorops/core/internal';

/** Where a pass's blocks go in the arena: block i < split to firstAt, the rest to secondAt. */
export interface ChunkPair {
  readonly firstAt: number;
  readonly secondAt: number;
  readonly split: number;
}

/** Arena index of block i of a pass (see ChunkPair). */
export function placeOf(i: number, to: ChunkPair, blockBytes: number): number {
  return i < to.split ? to.firstAt + i * blockBytes : to.secondAt + (i - to.split) * blockBytes;
}

/** Zeroes the ZERO_FILL blocks of a pass in its reused chunks, which hold an earlier pass's bytes. */
export function zeroFillBlocks(
  arena: Uint8Array,
  offsets: Float64Array,
  count: number,
  to: ChunkPair,
  blockBytes: number,
): void {
  for (let i = 0; i < count; i++) {
    if (offsets[i] !== ZERO_FILL) continue;
    const d = placeOf(i, to, blockBytes);
    arena.fill(0, d, d + blockBytes);
  }
}
