// Passes: dense picks from a large source, with no byte of it held in fresh memory. The output is
// produced in large chunks; for each pass (two reused chunks, or one fresh chunk for a consumer
// that keeps them), the windows of the source that hold its blocks are read in file order into
// reused buffers, and the blocks are copied to their places in the chunks. Memory is three output
// chunks and two windows, all reused; the price is one read of the touched windows per pass, from
// the page cache. First-touch page faults cost far more per byte than page-cache reads into memory
// already faulted in (docs/performance.md), so this beats reading a large source whole.

import { copyElement, ZERO_FILL } from '@tensorops/core/internal';
import { swapBytesInPlace } from '../../layout.js';
import { blockMover } from '../../wasm/blocks.js';
import { canRelease } from '../capabilities.js';
import type { ChunkOptions } from '../tensor-stream.js';
import type { RunContext } from './context.js';
import { runReads } from './reads.js';
import { sourceOffset } from './sweep.js';

/** A pass's output chunk is this many times the context's chunk size. */
export const PASS_CHUNK_SCALE = 4;
/** Output chunks a pass fills with reused chunks, reading the source once for both (ChunkPair). */
export const CHUNKS_PER_PASS = 2;
/** Reused output chunks, taking turns: those a pass fills, and the one the consumer may hold. */
export const RING = CHUNKS_PER_PASS + 1;

/** Blocks at least this long are copied with one TypedArray.set (memmove) rather than word by word. */
const LONG_BLOCK_BYTES = 1024;

/** A pass's output chunk and source window, derived from the context's output chunk size. */
export function passSizes(ctx: RunContext): { chunkBlocks: number; windowBytes: number } {
  const { blockBytes } = ctx.plan;
  const chunkBlocks = Math.max(1, Math.floor((PASS_CHUNK_SCALE * ctx.chunkBytes) / blockBytes));
  const item = Math.max(ctx.swapUnit, 1);
  // A multiple of the swap unit, so that each window starts on a whole element to swap.
  const windowBytes = Math.max(item, Math.floor(ctx.chunkBytes / 2 / item) * item);
  return { chunkBlocks, windowBytes };
}

/** Source offsets of output blocks [from, from + count) into `into` (see sourceOffset). */
function sourceOffsets(ctx: RunContext, from: number, into: Float64Array, count: number): void {
  const { outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  if (outer !== 1) {
    for (let i = 0; i < count; i++) into[i] = sourceOffset(ctx.plan, from + i);
    return;
  }
  // With one outer row, block k reads position k of batch row floor(k / perBatch): a running row
  // instead of two divisions per block.
  let row = Math.floor(from / perBatch);
  let rowEnd = (row + 1) * perBatch;
  for (let i = 0, k = from; i < count; i++, k++) {
    if (k === rowEnd) {
      row++;
      rowEnd += perBatch;
    }
    const p = positions[k] as number;
    into[i] = p === ZERO_FILL ? ZERO_FILL : (row * axisSize + p) * blockBytes;
  }
}

/**
 * How many source windows a passes run reads, in all, each pass filling CHUNKS_PER_PASS chunks
 * (for the cost model).
 */
export function passReads(ctx: RunContext): number {
  const { chunkBlocks, windowBytes } = passSizes(ctx);
  const blocks = ctx.nbytes / ctx.plan.blockBytes;
  const span = CHUNKS_PER_PASS * chunkBlocks;
  const offsets = new Float64Array(Math.min(span, blocks));
  const seen = new Float64Array(Math.ceil(sourceBytes(ctx) / windowBytes)).fill(-1);
  let reads = 0;
  for (let first = 0; first < blocks; first += span) {
    const count = Math.min(span, blocks - first);
    sourceOffsets(ctx, first, offsets, count);
    for (let i = 0; i < count; i++) {
      const at = offsets[i] as number;
      if (at === ZERO_FILL) continue;
      const win = Math.floor(at / windowBytes);
      if (seen[win] !== first) {
        seen[win] = first;
        reads++;
      }
    }
  }
  return reads;
}

/**
 * At least passReads(ctx), without walking the positions: every pass reads each window at most
 * once, and no more windows than it has blocks.
 */
export function passReadsBound(ctx: RunContext): number {
  const { chunkBlocks, windowBytes } = passSizes(ctx);
  const blocks = ctx.nbytes / ctx.plan.blockBytes;
  const span = CHUNKS_PER_PASS * chunkBlocks;
  const windows = Math.ceil(sourceBytes(ctx) / windowBytes);
  const full = Math.floor(blocks / span);
  return full * Math.min(windows, span) + Math.min(windows, blocks - full * span);
}

function sourceBytes(ctx: RunContext): number {
  const { batch, outer, axisSize, blockBytes } = ctx.plan;
  return batch * outer * axisSize * blockBytes;
}

export async function* passesGather(
  ctx: RunContext,
  options?: ChunkOptions,
): AsyncIterable<Uint8Array> {
  const { blockBytes } = ctx.plan;
  if (ctx.nbytes === 0) return;
  const { chunkBlocks, windowBytes } = passSizes(ctx);
  const total = sourceBytes(ctx);
  const windows = Math.ceil(total / windowBytes);
  const blocks = ctx.nbytes / blockBytes;
  // With reused chunks, the windows and the chunks share one buffer, so that a block moves with
  // one memmove: wasm/blocks.wat moves a window's blocks in one call where WebAssembly loads,
  // else one copyWithin each (docs/performance.md). RING chunks take turns, output chunk k in
  // chunk k % RING; a pass fills all but one of them, as the consumer may still hold the one
  // handed out last (output-chunks.ts hands out one ahead), never one before it. A pass reads the
  // source once for all it fills.
  const reuse = options?.reuse === true;
  const perPass = reuse ? CHUNKS_PER_PASS : 1; // output chunks
  const perRun = Math.min(perPass * chunkBlocks, blocks); // blocks in a pass, at most
  const starts = new Int32Array(windows + 1);
  // A window reaches one block further, so that a block starting in it is read whole.
  const windowLength = Math.min(total, windowBytes + blockBytes);
  const chunkLength = Math.min(chunkBlocks, blocks) * blockBytes;
  // Two window slots come first: one is read while the blocks of the other move.
  const chunksAt = 2 * windowLength;
  const arenaBytes = chunksAt + (reuse ? RING * chunkLength : 0);
  // One buffer holds the arena, then the pass's block order (its block indices, bucketed by
  // window) and source offsets: the block mover's memory, whose loop reads all three, else an
  // ArrayBuffer laid out the same.
  const orderAt = alignTo8(arenaBytes);
  const offsetsAt = alignTo8(orderAt + 4 * perRun);
  const mover = reuse ? blockMover(offsetsAt + 8 * perRun, ctx.nbytes) : null;
  const buffer = mover?.memory ?? new ArrayBuffer(offsetsAt + 8 * perRun);
  const arena = new Uint8Array(buffer, 0, arenaBytes);
  const order = new Int32Array(buffer, orderAt, perRun);
  const offsets = new Float64Array(buffer, offsetsAt, perRun);
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
      yield out;
      continue;
    }
    // Blocks [0, chunkBlocks) of the pass go to output chunk k, the rest to k + 1.
    const to: ChunkPair = {
      firstAt: chunksAt + (k % RING) * chunkLength,
      secondAt: chunksAt + ((k + 1) % RING) * chunkLength,
      split: chunkBlocks,
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
    const firstCount = Math.min(count, chunkBlocks);
    yield arena.subarray(to.firstAt, to.firstAt + firstCount * blockBytes);
    if (count > firstCount)
      yield arena.subarray(to.secondAt, to.secondAt + (count - firstCount) * blockBytes);
  }
}

function alignTo8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** Where a pass's blocks go in the arena: block i < split to firstAt, the rest to secondAt. */
interface ChunkPair {
  readonly firstAt: number;
  readonly secondAt: number;
  readonly split: number;
}

/** Arena index of block i of a pass (see ChunkPair). */
function placeOf(i: number, to: ChunkPair, blockBytes: number): number {
  return i < to.split ? to.firstAt + i * blockBytes : to.secondAt + (i - to.split) * blockBytes;
}

/** Zeroes the ZERO_FILL blocks of a pass in its reused chunks, which hold an earlier pass's bytes. */
function zeroFillBlocks(
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

/**
 * The windows a pass needs (those with blocks in `starts`), read in file order into the two window
 * slots at the start of the arena, byte-swapped if the file's order asks. The next window is read
 * while the blocks of the one before move: for a file, on a libuv thread, so that the page-cache
 * copy runs on another core; for a pipe's spill, as soon as the copy has written it.
 */
class PassWindows {
  constructor(
    private readonly ctx: RunContext,
    private readonly arena: Uint8Array,
    private readonly windowBytes: number,
    private readonly windowLength: number,
    private readonly total: number,
  ) {}

  /**
   * Each needed window once it is read: `w`, and `base` (a source offset minus it is the arena
   * index). With `release`, where the file can free what is read, the windows come last first,
   * and each read releases the bytes no window before it reaches.
   */
  async *pass(starts: Int32Array, release = false): AsyncIterable<{ w: number; base: number }> {
    const windows = starts.length - 1;
    const { file } = this.ctx;
    const backwards = release && canRelease(file);
    const step = backwards ? previousWindow : nextWindow;
    const first = step(starts, backwards ? windows : -1);
    let pending: Promise<void> | undefined; // the read of window w, started during the last move
    for (let w = first, slot = 0; w >= 0 && w < windows; slot ^= 1) {
      await (pending ?? this.read(w, slot));
      const after = step(starts, w);
      pending = after >= 0 && after < windows ? this.read(after, slot ^ 1) : undefined;
      // Windows before w reach up to its start plus one block (see spanOf).
      if (backwards) file.release(this.ctx.offset + w * this.windowBytes + this.reach);
      const at = slot * this.windowLength;
      swapBytesInPlace(this.arena.subarray(at, at + this.spanOf(w)), this.ctx.swapUnit);
      yield { w, base: w * this.windowBytes - at };
      w = after;
    }
  }

  /** How far a window reaches beyond its windowBytes. */
  private get reach(): number {
    return Math.max(0, this.windowLength - this.windowBytes);
  }

  private spanOf(w: number): number {
    const start = w * this.windowBytes;
    // A window reaches one block further, so that a block starting in it is read whole.
    return Math.min(this.total, start + this.windowLength) - start;
  }

  private read(w: number, slot: number): Promise<void> {
    const position = this.ctx.offset + w * this.windowBytes;
    const at = slot * this.windowLength;
    const target = this.arena.subarray(at, at + this.spanOf(w));
    const read = runReads(this.ctx, [{ position, target }]);
    read.catch(() => {}); // awaited by the next step; a pass left early must not leave it unhandled
    return read;
  }
}

/** The last window before `w` that holds blocks of the chunk; -1 where none does. */
function previousWindow(starts: Int32Array, w: number): number {
  let previous = w - 1;
  while (previous >= 0 && starts[previous] === starts[previous + 1]) previous--;
  return previous;
}

/** The first window after `w` that holds blocks of the chunk (starts[k] < starts[k + 1]). */
function nextWindow(starts: Int32Array, w: number): number {
  const windows = starts.length - 1;
  let next = w + 1;
  while (next < windows && starts[next] === starts[next + 1]) next++;
  return next;
}

// The loops over a chunk's blocks are functions of their own, out of the async generator: inline
// there, the sort's loops took 2-3 times as long (docs/performance.md).

/**
 * Counting sort of a pass's blocks by the source window that holds them: afterwards the blocks of
 * window w are order[starts[w], starts[w + 1]), in output order. ZERO_FILL blocks are left out.
 */
function bucketByWindow(
  offsets: Float64Array,
  count: number,
  windowBytes: number,
  starts: Int32Array,
  order: Int32Array,
): void {
  const windows = starts.length - 1;
  starts.fill(0);
  for (let i = 0; i < count; i++) {
    const at = offsets[i] as number;
    if (at === ZERO_FILL) continue;
    const w = Math.floor(at / windowBytes) + 1;
    starts[w] = (starts[w] as number) + 1;
  }
  for (let w = 0; w < windows; w++)
    starts[w + 1] = (starts[w + 1] as number) + (starts[w] as number);
  const next = starts.slice(0, windows);
  for (let i = 0; i < count; i++) {
    const at = offsets[i] as number;
    if (at === ZERO_FILL) continue;
    const w = Math.floor(at / windowBytes);
    const slot = next[w] as number;
    next[w] = slot + 1;
    order[slot] = i;
  }
}

/**
 * Copies the blocks of order[from, to) from a window slot of `arena` to their places in a fresh
 * chunk `out`: block i is at offsets[i] - base in the arena and goes to i * blockBytes. Word
 * copies when both views are given, one TypedArray.set for long blocks.
 */
function copyBlocks(
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
function moveBlocks(
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
