// A spill from a stream without a copy thread: its data is read and written to the temp file
// before the gather starts, which then reads the file like any other.

import { closeSync } from 'node:fs';
import type { NpyOnStream } from '../../file/gather-file/stream-sweep.js';
import { openTensorFile } from '../../node/tensor-file.js';
import type { Spill } from './spill.js';
import { writeAll } from './temp-file.js';

/** Bytes copied from the stream to the temp file per write. */
const COPY_BYTES = 1 << 20;

/** Copies the data of `npy` to `fd` (which holds its header, and is closed here) and opens it. */
export async function spillByReads(npy: NpyOnStream, fd: number, dir: string): Promise<Spill> {
  try {
    const buffer = new Uint8Array(COPY_BYTES);
    for (let got = await npy.read(buffer); got > 0; got = await npy.read(buffer)) {
      writeAll(fd, buffer.subarray(0, got), dir);
    }
    // A pipe that ended early leaves a short file: the reader reports it as truncated.
    const file = await openTensorFile(`/proc/self/fd/${fd}`, { label: npy.label });
    return { file, copied: Promise.resolve(), close: () => file.close() };
  } finally {
    closeSync(fd);
  }
}
