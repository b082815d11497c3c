// The source windows of a pass, read ahead into two slots that take turns, and released behind
// where the file can free what will not be read again.

import { canRelease } from '../../file/capabilities.js';
import type { RunContext } from '../../file/gather-file/context.js';
import { runReads } from '../../file/gather-file/reads.js';
import { swapBytesInPlace } from '../../layout.js';

/**
 * The windows a pass needs (those with blocks in `starts`), read in file order into the two window
 * slots at the start of the arena, byte-swapped if the file's order asks. The next window is read
 * while the blocks of the one before move: for a file, on a libuv thread, so that the page-cache
 * copy runs on another core; for a pipe's spill, as soon as the copy has written it.
 */
export class PassWindows {
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
