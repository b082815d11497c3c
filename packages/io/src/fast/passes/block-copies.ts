// The JavaScript block copies of a pass: into a fresh chunk (word by word, or one memmove for a
// long block), or within the arena between a window slot and the reused chunks (one copyWithin
// each, where WebAssembly's block mover is not available). Each loop is a function of its own,
// out of the async generator that calls it, where V8 optimizes it as a plain loop.

import { copyElement } from '@tensorops/core/internal';
import { type ChunkPair, placeOf } from './chunk-pair.js';

/** Blocks at least this long are copied with one TypedArray.set (memmove) rather than word by word. */
const LONG_BLOCK_BYTES = 1024;

/**
 * Copies the blocks of order[from, to) from a window slot of `arena` to their places in a fresh
 * chunk `out`: block i is at offsets[i] - base in the arena and goes to i * blockBytes. Word
 * copies when both views are given, one TypedArray.set for long blocks.
 */
export function copyBlocks(
  arena: Uint8Array,
  arena32: Int32Array | undefined,
  out: Uint8Array,
  out32: Int32Array | undefined,
  order: Int32Array,
  offsets: Float64Array,
  from: number,
  to: number,
  base: number,
  blockBytes: number,
): void {
  for (let slot = from; slot < to; slot++) {
    const i = order[slot] as number;
    const s = (offsets[i] as number) - base;
    const d = i * blockBytes;
    if (blockBytes >= LONG_BLOCK_BYTES) out.set(arena.subarray(s, s + blockBytes), d);
    else if (arena32 !== undefined && out32 !== undefined)
      copyElement(arena32, s >>> 2, out32, d >>> 2, blockBytes >>> 2);
    else copyElement(arena, s, out, d, blockBytes);
  }
}

/**
 * Moves the blocks of order[from, to) from a window slot of `arena` to their places in the pass's
 * chunks in the same buffer: block i is at offsets[i] - base in the arena and goes to
 * placeOf(i). One copyWithin each, a native memmove: the path without WebAssembly, where
 * wasm/blocks.wat's move_blocks runs the same loop.
 */
export function moveBlocks(
  arena: Uint8Array,
  order: Int32Array,
  offsets: Float64Array,
  from: number,
  to: number,
  base: number,
  chunks: ChunkPair,
  blockBytes: number,
): void {
  for (let slot = from; slot < to; slot++) {
    const i = order[slot] as number;
    const s = (offsets[i] as number) - base;
    arena.copyWithin(placeOf(i, chunks, blockBytes), s, s + blockBytes);
  }
}
