// Where each output block of a gather reads the source, and those blocks grouped by the span of
// the source they start in. A reader that goes through the source once, in order (a stream sweep,
// a windowed sweep), finds each span's blocks without a pass over all indices.

import type { GatherPlan } from '@tensorops/core';
import { ZERO_FILL } from '@tensorops/core/internal';

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
export function blocksPerSpan(plan: GatherPlan, spanBytes: number): Int32Array {
  const { batch, outer, axisSize, blockBytes } = plan;
  const counts = new Int32Array(Math.ceil((batch * outer * axisSize * blockBytes) / spanBytes));
  forEachSourceBlock(plan, (_, at) => {
    const span = Math.floor(at / spanBytes);
    counts[span] = (counts[span] as number) + 1;
  });
  return counts;
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
