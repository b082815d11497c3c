// The memory of a passes run, all of it in one buffer sized once: two window slots, then (with
// reused chunks) the ring of output chunks, then the pass's block order and source offsets. With reused
// chunks the buffer is the WebAssembly block mover's memory where it loads, so that its loop
// reads the order and offsets and moves the blocks within one memory; otherwise an ArrayBuffer
// laid out the same.

import { type BlockMover, blockMover } from './block-mover.js';

export interface PassArena {
  /** Window slots at [0, chunksAt), then the reused chunks (none for fresh chunks). */
  readonly arena: Uint8Array;
  /** Where the reused chunks start: after the two window slots. */
  readonly chunksAt: number;
  /** Bytes of a window slot: a window reaches one block further, so its blocks are read whole. */
  readonly windowLength: number;
  /** Bytes of a reused output chunk. */
  readonly chunkLength: number;
  /** A pass's blocks, bucketed by window (int32 each), at byte orderAt of the buffer. */
  readonly order: Int32Array;
  readonly orderAt: number;
  /** The source offset of each block of a pass (float64 each), at byte offsetsAt. */
  readonly offsets: Float64Array;
  readonly offsetsAt: number;
  /** The WebAssembly block mover over this buffer; null where it did not load or is not used. */
  readonly mover: BlockMover | null;
}

export interface ArenaSizes {
  readonly total: number;
  readonly windowBytes: number;
  readonly blockBytes: number;
  readonly chunkBlocks: number;
  /** Output blocks in all. */
  readonly blocks: number;
  /** Blocks in a pass, at most. */
  readonly perRun: number;
  /** Output bytes in all (the mover's memory grows with nothing else). */
  readonly outputBytes: number;
  /** Reused output chunks, taking turns. */
  readonly ring: number;
}

export function passArena(s: ArenaSizes, reuse: boolean): PassArena {
  const windowLength = Math.min(s.total, s.windowBytes + s.blockBytes);
  const chunkLength = Math.min(s.chunkBlocks, s.blocks) * s.blockBytes;
  // Two window slots come first: one is read while the blocks of the other move.
  const chunksAt = 2 * windowLength;
  const arenaBytes = chunksAt + (reuse ? s.ring * chunkLength : 0);
  const orderAt = alignTo8(arenaBytes);
  const offsetsAt = alignTo8(orderAt + 4 * s.perRun);
  const bytes = offsetsAt + 8 * s.perRun;
  const mover = reuse ? blockMover(bytes, s.outputBytes) : null;
  const buffer = mover?.memory ?? new ArrayBuffer(bytes);
  return {
    arena: new Uint8Array(buffer, 0, arenaBytes),
    chunksAt,
    windowLength,
    chunkLength,
    order: new Int32Array(buffer, orderAt, s.perRun),
    orderAt,
    offsets: new Float64Array(buffer, offsetsAt, s.perRun),
    offsetsAt,
    mover,
  };
}

function alignTo8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
