// io's WebAssembly kernel (packages/io/wasm/blocks.wat): the passes strategy's block moves,
// loaded through core's loader with a memory of its own per run. Optional like every kernel of
// tensorops: where WebAssembly is missing, refused or turned off, block-copies.ts moves the blocks
// in JavaScript, to the same bytes.

import { wasmWithOwnMemory } from '@tensorops/core/internal';
import { BLOCKS_WASM } from '../../wasm/blocks-binary.js';

/**
 * For slot in [from, to): block i = order[slot] (int32 at `order + 4 * slot`) moves from
 * offsets[i] - base (float64 at `offsets + 8 * i`) to firstAt + i * blockBytes when i < split,
 * else to secondAt + (i - split) * blockBytes. Byte offsets into the instance's memory.
 */
export type MoveBlocksKernel = (
  order: number,
  offsets: number,
  from: number,
  to: number,
  base: number,
  firstAt: number,
  secondAt: number,
  split: number,
  blockBytes: number,
) => void;

export interface BlockMover {
  /** The instance's memory, zeroed, at least the size asked for; never grown. */
  readonly memory: ArrayBuffer;
  readonly moveBlocks: MoveBlocksKernel;
}

const load = wasmWithOwnMemory(BLOCKS_WASM);

/** A block mover over a new memory of `memoryBytes`, or null (then move blocks in JavaScript). */
export function blockMover(memoryBytes: number, outputBytes: number): BlockMover | null {
  const instance = load(memoryBytes, outputBytes);
  if (instance === null) return null;
  return { memory: instance.memory, moveBlocks: instance.exports.move_blocks as MoveBlocksKernel };
}
