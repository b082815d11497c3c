// Whether a gather from a .npy on a pipe goes through a temp copy: when the cost model says the
// copy pays (pick-mode.ts's spillPays), the data can be read by ranges (not Fortran order), and
// the temp folder can hold it and keep room to spare. The temp file is reopened through
// /proc/self/fd (Linux); elsewhere the pipe is swept.

import { existsSync, statfsSync } from 'node:fs';
import { dtypeSize, type GatherPlan } from '@tensorops/core';
import { npyStoredTensor } from '../../file/npy-file.js';
import { rangeReadable } from '../../file/stored.js';
import type { NpyHeader } from '../../npy.js';
import { spillPays } from '../pick-mode.js';

/** The output chunk the file strategies default to (the passes' chunks are four of them). */
const CHUNK_BYTES = 8 << 20;
/** Room the temp folder keeps free after the copy. */
const SPARE_BYTES = 256 << 20;

export function spillWanted(
  header: NpyHeader,
  plan: GatherPlan,
  chunkBytes: number | undefined,
  dir: string,
): boolean {
  let outBytes = dtypeSize(header.dtype);
  for (const d of plan.outShape) outBytes *= d;
  return (
    rangeReadable(npyStoredTensor(header)) &&
    spillPays(header.nbytes, outBytes, chunkBytes ?? CHUNK_BYTES) &&
    hasRoom(dir, header.nbytes)
  );
}

/** /proc/self/fd can reopen an unlinked file, and `dir` has room for `bytes` and to spare. */
function hasRoom(dir: string, bytes: number): boolean {
  try {
    if (!existsSync('/proc/self/fd')) return false;
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize >= bytes + SPARE_BYTES;
  } catch {
    return false;
  }
}
