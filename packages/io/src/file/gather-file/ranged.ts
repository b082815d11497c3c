// Ranged: one read per run of consecutive source blocks, straight into the output chunk; the
// reads of one chunk run concurrently. For few picks from a large file: memory stays at one
// output chunk whatever the file's size.

import type { GatherPlan } from '@tensorops/core';
import { ZERO_FILL } from '@tensorops/core/internal';
import { swapBytesInPlace } from '../../layout.js';
import type { ChunkOptions } from '../tensor-stream.js';
import type { RunContext } from './context.js';
import { chunkAllocator } from './output-chunks.js';
import { type PendingRead, runReads } from './reads.js';

interface Run {
  /** Source block index within the region, or ZERO_FILL. */
  readonly first: number;
  readonly blocks: number;
}

/** Positions of one batch entry as runs of consecutive source blocks (and zero-fill runs). */
function runsOf(positions: GatherPlan['positions'], start: number, count: number): Run[] {
  const runs: Run[] = [];
  let j = 0;
  while (j < count) {
    const p = positions[start + j] as number;
    let k = 1;
    if (p === ZERO_FILL) {
      while (j + k < count && positions[start + j + k] === ZERO_FILL) k++;
    } else {
      while (j + k < count && positions[start + j + k] === p + k) k++;
    }
    runs.push({ first: p, blocks: k });
    j += k;
  }
  return runs;
}

export async function* rangedGather(
  ctx: RunContext,
  options?: ChunkOptions,
): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  const allocate = chunkAllocator(ctx, options);
  let produced = 0;
  let out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
  let fill = 0;
  let reads: PendingRead[] = [];
  const flush = async (): Promise<Uint8Array> => {
    await runReads(ctx, reads);
    reads = [];
    const chunk = out.subarray(0, fill);
    swapBytesInPlace(chunk, ctx.swapUnit);
    produced += fill;
    return chunk;
  };
  for (let b = 0; b < batch; b++) {
    const runs = runsOf(positions, b * perBatch, perBatch);
    for (let o = 0; o < outer; o++) {
      const regionStart = ctx.offset + (b * outer + o) * axisSize * blockBytes;
      for (const run of runs) {
        let done = 0;
        const length = run.blocks * blockBytes;
        while (done < length) {
          const take = Math.min(length - done, out.length - fill);
          if (run.first === ZERO_FILL) out.fill(0, fill, fill + take);
          else {
            reads.push({
              position: regionStart + run.first * blockBytes + done,
              target: out.subarray(fill, fill + take),
            });
          }
          fill += take;
          done += take;
          if (fill === out.length) {
            yield await flush();
            fill = 0;
            if (produced < ctx.nbytes)
              out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
          }
        }
      }
    }
  }
  if (fill > 0) yield await flush();
}
