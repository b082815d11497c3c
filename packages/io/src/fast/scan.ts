// Scan: reads whole regions (rows of the plan's 4-D view; for axis 0 the whole tensor) into one
// buffer and runs core's kernel from it into the output chunks. For dense picks from a region
// that fits in memory: one sequential read instead of one read per block.

import { runGatherPlan } from '@tensorops/core';
import { ZERO_FILL } from '@tensorops/core/internal';
import { holdsBytes } from '../file/capabilities.js';
import type { RunContext } from '../file/gather-file/context.js';
import { chunkAllocator } from '../file/gather-file/output-chunks.js';
import { piecesOf, runReads } from '../file/gather-file/reads.js';
import type { ChunkOptions } from '../file/tensor-stream.js';
import { swapBytesInPlace } from '../layout.js';

export async function* scanGather(
  ctx: RunContext,
  options?: ChunkOptions,
): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  if (ctx.nbytes === 0) return;
  const regionBytes = axisSize * blockBytes;
  const rowOut = perBatch * blockBytes;
  const regions = batch * outer;
  // A file held in memory is gathered from in place (its bytes need no swap); one on disk is read
  // a window of regions at a time into one buffer.
  const inMemory =
    ctx.swapUnit === 1 && holdsBytes(ctx.file)
      ? ctx.file.bytesInMemory(ctx.offset, regions * regionBytes)
      : undefined;
  const window =
    inMemory === undefined ? Math.max(1, Math.floor(ctx.chunkBytes / regionBytes)) : regions;
  const scan = inMemory ?? new Uint8Array(Math.min(window, regions) * regionBytes);
  const allocate = chunkAllocator(ctx, options);
  let produced = 0;
  let out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes));
  let fill = 0;
  const next = (): Uint8Array => {
    const chunk = out.subarray(0, fill);
    produced += fill;
    fill = 0;
    return chunk;
  };
  for (let first = 0; first < regions; first += window) {
    const count = Math.min(window, regions - first);
    const view = scan.subarray(0, count * regionBytes);
    if (inMemory === undefined) {
      await runReads(ctx, piecesOf(view, ctx.offset + first * regionBytes, ctx.chunkBytes));
      // Swapped once here, so that the copies below can go through core's kernel as plain bytes.
      swapBytesInPlace(view, ctx.swapUnit);
    }
    let r = first;
    while (r < first + count) {
      if (fill === out.length) {
        yield next();
        out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
      }
      const b = Math.floor(r / outer);
      const bPositions = positions.subarray(b * perBatch, (b + 1) * perBatch);
      const space = out.length - fill;
      if (rowOut <= space) {
        // Whole output rows at once: as many as fit, from this window and this batch entry.
        const rows = Math.min(Math.floor(space / rowOut), first + count - r, (b + 1) * outer - r);
        const src = view.subarray((r - first) * regionBytes, (r - first + rows) * regionBytes);
        const dst = out.subarray(fill, fill + rows * rowOut);
        if (ctx.zeroFill) dst.fill(0);
        runGatherPlan({ ...ctx.plan, batch: 1, outer: rows, positions: bPositions }, src, dst);
        fill += rows * rowOut;
        r += rows;
        continue;
      }
      // A row larger than what is left of the chunk: its blocks, split at chunk ends.
      const regionBase = (r - first) * regionBytes;
      const src = view.subarray(regionBase, regionBase + regionBytes);
      for (let j = 0; j < perBatch; ) {
        if (fill === out.length) {
          yield next();
          out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
        }
        const room = out.length - fill;
        const blocks = Math.min(perBatch - j, Math.floor(room / blockBytes));
        if (blocks > 0) {
          const dst = out.subarray(fill, fill + blocks * blockBytes);
          if (ctx.zeroFill) dst.fill(0);
          const part = bPositions.subarray(j, j + blocks);
          runGatherPlan(
            { ...ctx.plan, batch: 1, outer: 1, perBatch: blocks, positions: part },
            src,
            dst,
          );
          fill += blocks * blockBytes;
          j += blocks;
          continue;
        }
        // One block larger than the room left: copied in pieces.
        const p = bPositions[j] as number;
        for (let done = 0; done < blockBytes; ) {
          if (fill === out.length) {
            yield next();
            out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
          }
          const take = Math.min(blockBytes - done, out.length - fill);
          if (p === ZERO_FILL) out.fill(0, fill, fill + take);
          else out.set(src.subarray(p * blockBytes + done, p * blockBytes + done + take), fill);
          fill += take;
          done += take;
        }
        j++;
      }
      r++;
    }
  }
  if (fill > 0) yield next();
}
