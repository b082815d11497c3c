// The sizes of a passes run (its output chunks and source windows, from the context's chunk size)
// and how many windows it reads, counted and bounded, for the cost model.

import { ZERO_FILL } from '@tensorops/core/internal';
import type { RunContext } from '../../file/gather-file/context.js';
import { sourceOffsets } from './source-offsets.js';

/** A pass's output chunk is this many times the context's chunk size. */
export const PASS_CHUNK_SCALE = 4;
/**
 * Passes over the source for any output, while the reused chunks fit RING_MAX_BYTES: each pass
 * fills output/PASSES chunks, so the source is read this many times whatever the size and the
 * work stays linear in it. Four balances the two costs of the cost model (pick-mode.ts): a pass
 * reads the source once, and the chunks it fills are fresh memory at FRESH_BYTE_COST a byte.
 */
const PASSES = 4;
/** The reused chunks of a run hold at most this much (beyond it, more passes). */
const RING_MAX_BYTES = 1 << 30;

/** The sizes of a passes run. */
export interface PassSizes {
  /** Blocks of an output chunk (what the consumer is handed at a time). */
  readonly chunkBlocks: number;
  /** Bytes of a source window. */
  readonly windowBytes: number;
  /** Output chunks a pass fills, reading the source once for all of them. */
  readonly chunksPerPass: number;
}

/**
 * Output chunks a pass fills, for an output of `chunks` chunks of `chunkLength` bytes: at least
 * two, enough for PASSES passes, and no more than the ring (one chunk more) can hold.
 */
export function chunksPerPass(chunks: number, chunkLength: number): number {
  const ringMax = Math.floor(RING_MAX_BYTES / Math.max(1, chunkLength));
  return Math.max(2, Math.min(Math.ceil(chunks / PASSES), ringMax - 1));
}

/** A pass's output chunk and source window, derived from the context's output chunk size. */
export function passSizes(ctx: RunContext): PassSizes {
  const { blockBytes } = ctx.plan;
  const chunkBlocks = Math.max(1, Math.floor((PASS_CHUNK_SCALE * ctx.chunkBytes) / blockBytes));
  const item = Math.max(ctx.swapUnit, 1);
  // A multiple of the swap unit, so that each window starts on a whole element to swap.
  const windowBytes = Math.max(item, Math.floor(ctx.chunkBytes / 2 / item) * item);
  const chunks = Math.ceil(ctx.nbytes / blockBytes / chunkBlocks);
  return {
    chunkBlocks,
    windowBytes,
    chunksPerPass: chunksPerPass(chunks, chunkBlocks * blockBytes),
  };
}

/**
 * How many source windows a passes run reads, in all, each pass filling chunksPerPass chunks
 * (for the cost model).
 */
export function passReads(ctx: RunContext): number {
  const { chunkBlocks, windowBytes, chunksPerPass } = passSizes(ctx);
  const blocks = ctx.nbytes / ctx.plan.blockBytes;
  const span = chunksPerPass * chunkBlocks;
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
  const { chunkBlocks, windowBytes, chunksPerPass } = passSizes(ctx);
  const blocks = ctx.nbytes / ctx.plan.blockBytes;
  const span = chunksPerPass * chunkBlocks;
  const windows = Math.ceil(sourceBytes(ctx) / windowBytes);
  const full = Math.floor(blocks / span);
  return full * Math.min(windows, span) + Math.min(windows, blocks - full * span);
}

/** Bytes of the tensor's source: every row of the plan's 4-D view. */
export function sourceBytes(ctx: RunContext): number {
  const { batch, outer, axisSize, blockBytes } = ctx.plan;
  return batch * outer * axisSize * blockBytes;
}
