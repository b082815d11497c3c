// Sweep: dense picks from a source too large to hold whole. The windows of the source that hold
// picked blocks are read once each, in file order, into one reused buffer, and their blocks are
// copied to their places in an output held whole.

import type { RunContext } from '../file/gather-file/context.js';
import { piecesOf, runReads } from '../file/gather-file/reads.js';
import { blocksPerSpan, bucketBySpan, sourceOffset } from '../file/gather-file/span-buckets.js';
import { swapBytesInPlace } from '../layout.js';

/** Blocks per sweep window (by the window their first byte falls in) and how many windows have any. */
export function sweepWindows(ctx: RunContext): { counts: Int32Array; touched: number } {
  const counts = blocksPerSpan(ctx.plan, ctx.windowBytes);
  let touched = 0;
  for (const c of counts) if (c > 0) touched++;
  return { counts, touched };
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
