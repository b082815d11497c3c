// A spill by a copy thread: the gather reads the temp file through the copy's own descriptor and
// starts at once, each read waiting until the copy has got past it, so that planning and the
// first pass over the data run while the rest is still arriving.

import { TensorOpsError } from '@tensorops/core';
import { ioError } from '../../file/errors.js';
import type { NpyOnStream } from '../../file/gather-file/stream-sweep.js';
import { npyReader } from '../../file/npy-file.js';
import { tensorFile } from '../../file/stored.js';
import { CopyProgress } from './copy-progress.js';
import type { CopyToFile } from './copy-to-file.js';
import type { CopyFailure } from './pipe-copy.js';
import type { Spill } from './spill.js';
import { SpillSource } from './spill-source.js';

/** Starts copying the data of `npy` to `fd` (which holds its header; the spill owns it from here). */
export async function spillInThread(
  npy: NpyOnStream & CopyToFile,
  fd: number,
  dir: string,
): Promise<Spill> {
  const { label, headerBytes } = npy;
  const progress = new CopyProgress();
  const copied = copyData(() => npy.copyTo(fd, progress), label, dir).then((count) => {
    if (count < npy.header.nbytes) throw endedEarly(label, npy.header.nbytes, count);
  });
  // Observed by the reads that wait and by the gather's end; this keeps an unobserved failure
  // (a gather that failed first) from being reported as unhandled.
  copied.catch(() => {});
  const spill = new SpillSource(label, fd, headerBytes.length, npy.header.nbytes, progress, copied);
  const close = async (): Promise<void> => {
    // Ends the worker if it still copies (a gather that failed or was abandoned).
    if (!progress.ended) await npy.close();
    await copied.catch(() => {});
    await spill.close();
  };
  try {
    return { file: tensorFile(spill, await npyReader(spill)), copied, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The error of a pipe that ends before the data its header declares. */
function endedEarly(label: string, declared: number, got: number): TensorOpsError {
  return new TensorOpsError(
    'E_FORMAT',
    `${label}: data truncated: the header declares ${declared} data bytes, the stream ended after ${got}`,
  );
}

/** A stream's copyTo, its failures told as reading the stream or writing the temp folder. */
async function copyData(copy: () => Promise<number>, label: string, dir: string): Promise<number> {
  try {
    return await copy();
  } catch (failure) {
    const { op, cause } = failure as CopyFailure;
    throw op === 'write' ? ioError(dir, 'write', cause) : ioError(label, 'read', cause);
  }
}
