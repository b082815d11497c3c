// The fast path of a gather from a .npy on a pipe (Node only). The pipe can be read only once:
// the reference gather (file/gather-file/stream-sweep.ts) copies its picks out as it passes and
// holds the whole output in fresh memory. Where the cost model says so (policy.ts: the output is
// large next to the data, every row picked for example), the pipe is instead copied to an
// unlinked temp file (temp-file.ts) and gathered from there like any file, by the passes
// strategy, whose buffers are reused. A pipe given as a descriptor is copied by a
// worker thread (copy-to-file.ts, pipe-copy.ts, copy-worker.ts) while the gather already reads
// what it has written (spill-source.ts); any other stream is copied first (spill-by-reads.ts).
// Where no temp file can be made (the folder is missing, not a folder, read-only, not ours, or
// full), the pipe is swept.

import type { GatherPlan, Tensor } from '@tensorops/core';
import {
  type FileGatherOptions,
  type FileGatherStream,
  gatherFromFile,
} from '../../file/gather-file/index.js';
import type { NpyOnStream } from '../../file/gather-file/stream-sweep.js';
import type { TensorStream } from '../../file/tensor-stream.js';
import { spillWanted } from './policy.js';
import { startSpill } from './spill.js';
import { tempCopyOrUndefined } from './temp-file.js';

/** A gather from a spilled pipe: its output, and the close of its temp file. */
export interface SpilledGather {
  readonly stream: FileGatherStream;
  close(): Promise<void>;
}

/**
 * The gather of `indices` (planned as `plan`) from the .npy on `npy` through a temp file in `dir`,
 * where that costs less and the folder can hold it; undefined where the pipe is better swept, and
 * then nothing of it was read.
 */
export async function spilledGather(
  npy: NpyOnStream,
  indices: Tensor,
  plan: GatherPlan,
  options: FileGatherOptions,
  dir: string,
): Promise<SpilledGather | undefined> {
  if (!spillWanted(npy.header, plan, options.chunkBytes, dir)) return undefined;
  // Nothing of the pipe is read before the temp file holds its header: any way the folder fails
  // leaves the sweep, which needs no folder.
  const fd = tempCopyOrUndefined(dir, npy.headerBytes);
  if (fd === undefined) return undefined;
  const spilled = await startSpill(npy, fd, dir);
  try {
    const stream = gatherFromFile(spilled.file, spilled.file.get(), indices, options);
    return {
      stream: { ...stream, chunks: (o) => endingWith(stream.chunks(o), spilled.copied) },
      close: spilled.close,
    };
  } catch (error) {
    await spilled.close();
    throw error;
  }
}

/**
 * The chunks of `chunks`, then the end of the copy: a pipe that ended early or a copy that failed
 * fails the stream even where no read reached the missing part, before its writer commits.
 */
async function* endingWith(
  chunks: ReturnType<TensorStream['chunks']>,
  copied: Promise<void>,
): ReturnType<TensorStream['chunks']> {
  yield* chunks;
  await copied;
}
