// Passes: dense picks from a large source, with no byte of it held in fresh memory. The output is
// produced in large chunks; for each pass (two reused chunks, or one fresh chunk for a consumer
// that keeps them), the windows of the source that hold its blocks are read in file order into
// reused buffers, and the blocks are copied to their places in the chunks. Memory is a ring of
// output chunks (those of a pass and one more) and two windows, all reused; the price is one read
// of the touched windows per pass, from the page cache, and the passes are few at any size
// (sizes.ts), so the work is linear in the output. A first-touch page fault costs far more per byte than a page-cache read into
// memory already faulted in, so this beats reading a large source whole.
//
// This file runs the passes; beside it: sizes.ts (chunk and window sizes, read counts for the cost
// model), arena.ts (the one buffer of a run), windows.ts (read-ahead and release),
// bucket-by-window.ts (a pass's blocks by window), chunk-pair.ts (where they go), block-copies.ts
// and block-mover.ts (the JavaScript and WebAssembly moves).

import type { RunContext } from '../../file/gather-file/context.js';
import type { ChunkOptions } from '../../file/tensor-stream.js';
import { passArena } from './arena.js';
import { copyBlocks, moveBlocks } from './block-copies.js';
import { bucketByWindow } from './bucket-by-window.js';
import { type ChunkPair, zeroFillBlocks } from './chunk-pair.js';
import { passSizes, sourceBytes } from './sizes.js';
import { sourceOffsets } from './source-offsets.js';
import { PassWindows } from './windows.js';

export async function* passesGather(
  ctx: RunContext,
  options?: ChunkOptions,
): AsyncIterable<Uint8Array> {
  const { blockBytes } = ctx.plan;
  if (ctx.nbytes === 0) return;
  const { chunkBlocks, windowBytes, chunksPerPass } = passSizes(ctx);
  const total = sourceBytes(ctx);
  const windows = Math.ceil(total / windowBytes);
  const blocks = ctx.nbytes / blockBytes;
  // With reused chunks, the windows and the chunks share one buffer, so that a block moves with
  // one memmove: the WebAssembly block mover moves a window's blocks in one call where it loads,
  // else one copyWithin each, as a copyWithin per block costs more than a short block's copy.
  // The ring's chunks take turns, output chunk k in chunk k % ring; a pass fills all but one of
  // them, as the consumer may still hold the one handed out last (output-chunks.ts hands out one
  // ahead), never one before it. A pass reads the source once for all it fills. Fresh chunks (a
  // consumer that keeps them) are cut from one buffer per pass.
  const reuse = options?.reuse === true;
  const perPass = chunksPerPass; // output chunks
  const ring = perPass + 1;
  const starts = new Int32Array(windows + 1);
  const { arena, chunksAt, windowLength, chunkLength, order, orderAt, offsets, offsetsAt, mover } =
    passArena(
      {
        total,
        windowBytes,
        blockBytes,
        chunkBlocks,
        blocks,
        perRun: Math.min(perPass * chunkBlocks, blocks),
        outputBytes: ctx.nbytes,
        ring,
      },
      reuse,
    );
  const windowReader = new PassWindows(ctx, arena, windowBytes, windowLength, total);
  // Word copies where every block offset is a multiple of 4: in the window slots (slots, window
  // starts and blocks are) and in the chunk (both buffers start at offset 0 of their ArrayBuffer).
  const words = blockBytes % 4 === 0 && windowBytes % 4 === 0;
  const arena32 = words && !reuse ? new Int32Array(arena.buffer, 0, chunksAt >>> 2) : undefined;
  for (let first = 0, k = 0; first < blocks; ) {
    // Output chunks [k, k + perPass) this pass.
    const count = Math.min(perPass * chunkBlocks, blocks - first);
    sourceOffsets(ctx, first, offsets, count);
    bucketByWindow(offsets, count, windowBytes, starts, order);
    first += count;
    if (!reuse) {
      const out = new Uint8Array(count * blockBytes); // zeroed: ZERO_FILL blocks need nothing
      const out32 = words ? new Int32Array(out.buffer, 0, out.length >>> 2) : undefined;
      for await (const { w, base } of windowReader.pass(starts)) {
        const from = starts[w] as number;
        const to = starts[w + 1] as number;
        copyBlocks(arena, arena32, out, out32, order, offsets, from, to, base, blockBytes);
      }
      for (let at = 0; at < out.length; at += chunkBlocks * blockBytes) {
        yield out.subarray(at, Math.min(out.length, at + chunkBlocks * blockBytes));
      }
      continue;
    }
    // The pass's chunks are ring slots k % ring onwards: contiguous up to the ring's end, then
    // from its start, so its blocks go to two runs of the arena.
    const slot = k % ring;
    const to: ChunkPair = {
      firstAt: chunksAt + slot * chunkLength,
      secondAt: chunksAt,
      split: (ring - slot) * chunkBlocks,
    };
    // The last of several passes reads the windows backwards, freeing what it has passed where
    // the source can (a temp copy): the last chunks' writes reuse those pages.
    const release = k > 0 && first === blocks;
    k += perPass;
    if (ctx.zeroFill) zeroFillBlocks(arena, offsets, count, to, blockBytes);
    for await (const { w, base } of windowReader.pass(starts, release)) {
      const from = starts[w] as number;
      const end = starts[w + 1] as number;
      if (mover === null) moveBlocks(arena, order, offsets, from, end, base, to, blockBytes);
      else {
        const { firstAt, secondAt, split } = to;
        mover.moveBlocks(orderAt, offsetsAt, from, end, base, firstAt, secondAt, split, blockBytes);
      }
    }
    for (let done = 0, s = slot; done < count; done += chunkBlocks, s = (s + 1) % ring) {
      const at = chunksAt + s * chunkLength;
      yield arena.subarray(at, at + Math.min(chunkBlocks, count - done) * blockBytes);
    }
  }
}
