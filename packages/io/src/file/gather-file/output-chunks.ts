// Output chunks handed to the consumer: fresh or two reused buffers taking turns, and produced
// one ahead so that the consumer's write of one chunk overlaps the copies of the next.

import type { ChunkOptions } from '../tensor-stream.js';
import type { RunContext } from './context.js';

/**
 * Hands out the output buffer for the next chunk. With reuse, two buffers take turns: {@link ahead}
 * fills the next chunk while the consumer still holds the previous one.
 */
export function chunkAllocator(
  ctx: RunContext,
  options?: ChunkOptions,
): (length: number) => Uint8Array {
  const shared: Uint8Array[] = [];
  let turn = 0;
  return (length) => {
    if (options?.reuse !== true) return new Uint8Array(length);
    turn ^= 1;
    shared[turn] ??= new Uint8Array(Math.min(ctx.chunkBytes, ctx.nbytes));
    return (shared[turn] as Uint8Array).subarray(0, length);
  };
}

/**
 * Produces chunk k+1 while the consumer works on chunk k. A file writer hands chunk k to a libuv
 * thread and waits; computing k+1 is deferred to setImmediate so that it starts after that write
 * was issued and runs on the main thread alongside it, hiding the write behind the copies. The
 * producer must not reuse chunk k's buffer for k+1 (chunkAllocator alternates two).
 */
export async function* ahead(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  let pending = it.next();
  try {
    for (;;) {
      const step = await pending;
      if (step.done === true) return;
      pending = new Promise((resolve) => afterPendingIo(() => resolve(it.next())));
      // Observed when awaited above; this only stops a rejection being reported as unhandled when
      // the consumer leaves early and never asks for the chunk.
      pending.catch(() => {});
      yield step.value;
    }
  } finally {
    await it.return?.();
  }
}

/** Node's setImmediate (after pending I/O callbacks); a zero timeout where there is none. */
const afterPendingIo: (run: () => void) => void =
  typeof setImmediate === 'function' ? setImmediate : (run) => setTimeout(run, 0);
