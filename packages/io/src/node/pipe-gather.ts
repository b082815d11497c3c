// A gather from a .npy on a pipe: through a temp copy where the fast path says it pays
// (../fast/spill/), else by the stream sweep, which reads the pipe once as it passes.

import { planGather, type Tensor } from '@tensorops/core';
import { spilledGather } from '../fast/spill/index.js';
import type { FileGatherOptions, FileGatherStream } from '../file/gather-file/index.js';
import {
  gatherFromNpyStream,
  type NpyOnStream,
  type StreamGatherStream,
} from '../file/gather-file/stream-sweep.js';

export interface PipeGather {
  readonly stream: FileGatherStream | StreamGatherStream;
  /** Closes the temp file (the pipe itself is the caller's to close). */
  close(): Promise<void>;
}

/**
 * Gathers `indices` from the .npy on `npy` (numpy take / ONNX Gather), through a temp file in
 * `dir` when that costs less. Everything is validated before any data is read. `options` are
 * gatherFromFile's: its chunk sizes apply to either way.
 */
export async function gatherFromPipe(
  npy: NpyOnStream,
  indices: Tensor,
  options: FileGatherOptions = {},
  dir: string = process.getBuiltinModule('node:os').tmpdir(),
): Promise<PipeGather> {
  const plan = planGather(npy.header, indices, options);
  const spilled = await spilledGather(npy, indices, plan, options, dir);
  return spilled ?? { stream: gatherFromNpyStream(npy, indices, options), close: async () => {} };
}
