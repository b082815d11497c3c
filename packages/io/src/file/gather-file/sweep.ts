// Sweep: dense picks from a source too large to hold whole. The windows of the source that hold
// picked blocks are read once each, in file order, into one reused buffer, and their blocks are
// copied to their places in an output held whole.

import { ZERO_FILL } from '@tensorops/core/internal';
import { swapBytesInPlace } from '../../layout.js';
import type { RunContext } from './context.js';
import { piecesOf, runReads } from './reads.js';

/**
 * Calls visit(k, source byte offset within the tensor) for every output block k that reads the
 * source, in output order.
 */
function forEachSourceBlock(ctx: RunContext, visit: (k: number, at: number) => void): void {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
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

/** Blocks per sweep window (by the window their first byte falls in) and how many windows have any. */
export function sweepWindows(ctx: RunContext): { counts: Int32Array; touched: number } {
  const { batch, outer, axisSize, blockBytes } = ctx.plan;
  const counts = new Int32Array(
    Math.ceil((batch * outer * axisSize * blockBytes) / ctx.windowBytes),
  );
  const w = ctx.windowBytes;
  forEachSourceBlock(ctx, (_, at) => {
    const win = Math.floor(at / w);
    counts[win] = (counts[win] as number) + 1;
  });
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
  const { counts } = sweepWindows(ctx);
  const starts = new Float64Array(counts.length + 1);
  for (let i = 0; i < counts.length; i++)
    starts[i + 1] = (starts[i] as number) + (counts[i] as number);
  const blocks = starts[counts.length] as number;
  const order = new Float64Array(blocks); // output block index, bucketed by window
  const source = new Float64Array(blocks); // its source byte offset
  const next = starts.slice(0, counts.length);
  forEachSourceBlock(ctx, (k, at) => {
    const win = Math.floor(at / w);
    const slot = next[win] as number;
    next[win] = slot + 1;
    order[slot] = k;
    source[slot] = at;
  });
  // Zeroed, so ZERO_FILL blocks need nothing.
  const out = new Uint8Array(ctx.nbytes);
  // A window reaches one block further, so that a block starting in it is read whole.
  const buf = new Uint8Array(Math.min(total, w + blockBytes));
  for (let win = 0; win < counts.length; win++) {
    if (counts[win] === 0) continue;
    const start = win * w;
    const view = buf.subarray(0, Math.min(total, start + w + blockBytes) - start);
    await runReads(ctx, piecesOf(view, ctx.offset + start, ctx.chunkBytes));
    swapBytesInPlace(view, ctx.swapUnit);
    for (let slot = starts[win] as number; slot < (starts[win + 1] as number); slot++) {
      const s = (source[slot] as number) - start;
      const d = (order[slot] as number) * blockBytes;
      // A subarray per block would dominate for small blocks; copy those byte by byte.
      if (blockBytes <= 64) for (let i = 0; i < blockBytes; i++) out[d + i] = view[s + i] as number;
      else out.set(view.subarray(s, s + blockBytes), d);
    }
  }
  for (let at = 0; at < out.length; at += ctx.chunkBytes) {
    yield out.subarray(at, Math.min(out.length, at + ctx.chunkBytes));
  }
}
