// The fast paths of a gather, behind one seam. A reader of src/file/ does not need this folder to
// understand a gather: the reference there (file/gather-file/ranged.ts for a file, stream-sweep.ts
// for a stream) reads only what it is given through ByteSource.read and works for every source.
// It asks here once whether a faster strategy may serve the gather, and runs that one if so.
//
// What lives here, and why it is faster:
// - pick-mode.ts: the cost model. Bytes read, read calls and fresh memory are weighed, since a
//   first-touch page fault costs more per byte than a page-cache read into memory already
//   faulted in; a source that reads ranges in batches (a URL, a Blob) always stays ranged.
// - scan.ts: whole rows of the plan's view read at once (or used in place from memory).
// - sweep.ts: the windows that hold picked blocks, read once each in file order.
// - passes/: the output in large reused chunks, each filled from the windows it needs, with the
//   WebAssembly block mover where it loads; the last pass frees a temp copy behind it.
// - spill/ (Node only, reached from node/pipe-gather.ts): a .npy on a pipe copied to an unlinked
//   temp file by a worker thread and gathered by passes while the copy runs.
//
// Every strategy produces the same bytes as the ranged gather; only time and memory differ. The
// capabilities they use (file/capabilities.ts) are probed, never required.

import type { RunContext } from '../file/gather-file/context.js';
import type { ChunkOptions } from '../file/tensor-stream.js';
import { passesGather } from './passes/index.js';
import { type FastMode, pickMode } from './pick-mode.js';
import { scanGather } from './scan.js';
import { sweepGather } from './sweep.js';

export type { FastMode } from './pick-mode.js';

/** A faster strategy for one gather: its name and the output chunks it produces. */
export interface FasterGather {
  readonly mode: FastMode;
  run(ctx: RunContext, options?: ChunkOptions): AsyncIterable<Uint8Array>;
}

const STRATEGIES: Readonly<Record<FastMode, FasterGather['run']>> = {
  scan: scanGather,
  sweep: sweepGather,
  passes: passesGather,
};

/**
 * The strategy that serves the gather of `ctx` faster than the ranged one, by estimated cost
 * ('auto') or the one asked for; undefined where the ranged gather is the cheapest.
 */
export function fasterGather(ctx: RunContext, mode: 'auto' | FastMode): FasterGather | undefined {
  const picked = mode === 'auto' ? pickMode(ctx) : mode;
  return picked === undefined ? undefined : { mode: picked, run: STRATEGIES[picked] };
}
