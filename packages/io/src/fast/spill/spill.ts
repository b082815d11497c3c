// A spill: a .npy on a stream copied to a temp file that is gathered from like any file. A copy
// thread where the stream offers one (copy-to-file.ts), else reads of the stream.

import type { NpyOnStream } from '../../file/gather-file/stream-sweep.js';
import type { TensorFile } from '../../file/stored.js';
import { canCopyToFile } from './copy-to-file.js';
import { spillByReads } from './spill-by-reads.js';
import { spillInThread } from './spill-in-thread.js';

export interface Spill {
  /** The temp file, readable at once; its reads wait for the copy (SpillSource). */
  readonly file: TensorFile;
  /** Settles when the copy ends: rejects where it failed or the pipe ended early. */
  readonly copied: Promise<void>;
  /** Stops the copy if it still runs, and closes the temp file. */
  close(): Promise<void>;
}

/**
 * Starts copying the data of the .npy on `npy` to `fd`, a temp file in `dir` that holds its
 * header (see tempCopy); the spill owns `fd` from here.
 */
export function startSpill(npy: NpyOnStream, fd: number, dir: string): Promise<Spill> {
  return canCopyToFile(npy) ? spillInThread(npy, fd, dir) : spillByReads(npy, fd, dir);
}
