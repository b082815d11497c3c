// Sweep: dense picks from a source too large to hold whole. The windows of the source that hold
// picked blocks are read once each, in file order, into one reused buffer, and their blocks are
// copied to their places in an output held whole.

import type { GatherPlan } from '@tensorops/core';
import { ZERO_FILL } from '@tensorops/core/internal';
import { swapBytesInPlace } from '../../layout.js';
import type { RunContext } from './context.js';
import { piecesOf, runReads } from './reads.js';

/**
 * Calls visit(k, source byte offset within the tensor) for every output block k that reads the
 * source, in output order.
 */
function forEachSourceBlock(plan: GatherPlan, visit: (k: number, at: number) => void): void {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = plan;
  let k = 0;
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < outer; o++) {
      const rowBase = (b * outer + o) * axisSize;
      for (let j = b * perBatch; j < (b + 1) * perBatch; j++, k++) {
        const p = positions[j] as number;
        if (p !== ZERO_FILL) visit(k, (rowBase + p) * blockBytes);
      }
    }
  }
}

/** Blocks per span of `spanBytes` of the source (by the span their first byte falls in). */
function blocksPerSpan(plan: GatherPlan, spanBytes: number): Int32Array {
  const { batch, outer, axisSize, blockBytes } = plan;
  const counts = new Int32Array(Math.ceil((batch * outer * axisSize * blockBytes) / spanBytes));
  forEachSourceBlock(plan, (_, at) => {
    const span = Math.floor(at / spanBytes);
    counts[span] = (counts[span] as number) + 1;
  });
  return counts;
}

/** Blocks per sweep window (by the window their first byte falls in) and how many windows have any. */
export function sweepWindows(ctx: RunContext): { counts: Int32Array; touched: number } {
  const counts = blocksPerSpan(ctx.plan, ctx.windowBytes);
  let touched = 0;
  for (const c of counts) if (c > 0) touched++;
  return { counts, touched };
}

/** The output blocks that read the source, grouped by the span of the source they start in. */
export interface SpanBuckets {
  /** Span i's blocks are slots starts[i] to starts[i + 1] - 1. */
  readonly starts: Float64Array;
  /** Per slot: the output block index (its source offset is {@link sourceOffset}). */
  readonly order: Uint32Array | Float64Array;
}

/**
 * Buckets the blocks by span of `spanBytes` with a counting sort, so that each span finds its
 * blocks without a pass over all indices. Costs one counter per span and one number per block.
 */
export function bucketBySpan(plan: GatherPlan, spanBytes: number): SpanBuckets {
  const counts = blocksPerSpan(plan, spanBytes);
  const starts = new Float64Array(counts.length + 1);
  for (let i = 0; i < counts.length; i++)
    starts[i + 1] = (starts[i] as number) + (counts[i] as number);
  const blocks = starts[counts.length] as number;
  const outputBlocks = plan.batch * plan.outer * plan.perBatch;
  const order = outputBlocks <= 2 ** 32 ? new Uint32Array(blocks) : new Float64Array(blocks);
  const next = starts.slice(0, counts.length);
  forEachSourceBlock(plan, (k, at) => {
    const span = Math.floor(at / spanBytes);
    const slot = next[span] as number;
    next[span] = slot + 1;
    order[slot] = k;
  });
  return { starts, order };
}

/** The source byte offset (within the tensor) of output block k; ZERO_FILL if it reads nothing. */
export function sourceOffset(plan: GatherPlan, k: number): number {
  const { outer, axisSize, perBatch, blockBytes, positions } = plan;
  const row = Math.floor(k / perBatch); // b * outer + o
  const p = positions[Math.floor(row / outer) * perBatch + (k - row * perBatch)] as number;
  return p === ZERO_FILL ? ZERO_FILL : (row * axisSize + p) * blockBytes;
}

/**
 * Sweep: reads the windows of the source that hold any picked block, in file order, each once
 * into one reused buffer, and copies their blocks to their places in an output held whole. For
 * dense picks from a source too large to hold (a scan needs a whole region): sequential reads
 * instead of one read per block, with memory = output + one window. Blocks are bucketed by window
 * with a counting sort, so each window finds its blocks without a pass over all indices.
 */
export async function* sweepGather(ctx: RunContext): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, blockBytes } = ctx.plan;
  if (ctx.nbytes === 0) return;
  const total = batch * outer * axisSize * blockBytes;
  const w = ctx.windowBytes;
  const { starts, order } = bucketBySpan(ctx.plan, w);
  // Zeroed, so ZERO_FILL blocks need nothing.
  const out = new Uint8Array(ctx.nbytes);
  // A window reaches one block further, so that a block starting in it is read whole.
  const buf = new Uint8Array(Math.min(total, w + blockBytes));
  for (let win = 0; win + 1 < starts.length; win++) {
    if (starts[win] === starts[win + 1]) continue;
    const start = win * w;
    const view = buf.subarray(0, Math.min(total, start + w + blockBytes) - start);
    await runReads(ctx, piecesOf(view, ctx.offset + start, ctx.chunkBytes));
    swapBytesInPlace(view, ctx.swapUnit);
    for (let slot = starts[win] as number; slot < (starts[win + 1] as number); slot++) {
      const k = order[slot] as number;
      const s = sourceOffset(ctx.plan, k) - start;
      const d = k * blockBytes;
      // A subarray per block would dominate for small blocks; copy those byte by byte.
      if (blockBytes <= 64) for (let i = 0; i < blockBytes; i++) out[d + i] = view[s + i] as number;
      else out.set(view.subarray(s, s + blockBytes), d);
    }
  }
  for (let at = 0; at < out.length; at += ctx.chunkBytes) {
    yield out.subarray(at, Math.min(out.length, at + ctx.chunkBytes));
  }
}
