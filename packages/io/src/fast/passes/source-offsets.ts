// Where the output blocks of a pass start in the source, as the passes' loops read them: one
// float64 per block (ZERO_FILL for a block that reads nothing).

import { ZERO_FILL } from '@tensorops/core/internal';
import type { RunContext } from '../../file/gather-file/context.js';
import { sourceOffset } from '../../file/gather-file/span-buckets.js';

/** Source offsets of output blocks [from, from + count) into `into` (see sourceOffset). */
export function sourceOffsets(
  ctx: RunContext,
  from: number,
  into: Float64Array,
  count: number,
): void {
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
