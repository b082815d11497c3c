// The blocks of a pass grouped by the source window that holds them, by a counting sort: linear
// in the blocks and windows, with no allocation per pass beyond one copy of the window starts.

import { ZERO_FILL } from '@tensorops/core/internal';

/**
 * Counting sort of a pass's blocks by the source window that holds them: afterwards the blocks of
 * window w are order[starts[w], starts[w + 1]), in output order. ZERO_FILL blocks are left out.
 */
export function bucketByWindow(
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
