// A gather from a .npy on a pipe. The pipe can be read only once, so either its picks are copied
// out as it passes (the stream sweep, which holds the whole output in fresh memory), or it is
// first copied to a temp file and gathered from there like any file (the passes strategy, whose
// buffers are reused). spillPays decides by the same costs as the file strategies. The temp file
// is unlinked the moment it is created and read through /proc/self/fd (Linux), so nothing is left
// behind, whatever ends the process; elsewhere, or without room in the temp folder, the pipe is
// swept.

import { closeSync, existsSync, openSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { dtypeSize, type GatherOptions, planGather, type Tensor } from '@tensorops/core';
import { ioError } from '../file/errors.js';
import { type FileGatherStream, gatherFromFile } from '../file/gather-file/index.js';
import { spillPays } from '../file/gather-file/pick-mode.js';
import {
  gatherFromNpyStream,
  type NpyOnStream,
  type StreamGatherStream,
} from '../file/gather-file/stream-sweep.js';
import { npyStoredTensor } from '../file/npy-file.js';
import { rangeReadable, type TensorFile } from '../file/stored.js';
import type { CopyFailure } from './pipe-copy.js';
import { openTensorFile } from './tensor-file.js';

/** The output chunk the file strategies default to (the passes' chunks are four of them). */
const CHUNK_BYTES = 8 << 20;
/** Bytes copied from the pipe to the temp file per write. */
const COPY_BYTES = 1 << 20;
/** Room the temp folder keeps free after the copy. */
const SPARE_BYTES = 256 << 20;

export interface PipeGather {
  readonly stream: FileGatherStream | StreamGatherStream;
  /** Closes the temp file (the pipe itself is the caller's to close). */
  close(): Promise<void>;
}

/**
 * Gathers `indices` from the .npy on `npy` (numpy take / ONNX Gather), through a temp file in
 * `dir` when that costs less (see the header). Everything is validated before any data is read.
 */
export async function gatherFromPipe(
  npy: NpyOnStream,
  indices: Tensor,
  options: GatherOptions = {},
  dir: string = process.getBuiltinModule('node:os').tmpdir(),
): Promise<PipeGather> {
  const { header } = npy;
  const plan = planGather(header, indices, options);
  let outBytes = dtypeSize(header.dtype);
  for (const d of plan.outShape) outBytes *= d;
  const spill =
    rangeReadable(npyStoredTensor(header)) &&
    spillPays(header.nbytes, outBytes, CHUNK_BYTES) &&
    hasRoom(dir, header.nbytes);
  if (!spill) return { stream: gatherFromNpyStream(npy, indices, options), close: async () => {} };
  const file = await spillNpyStream(npy, dir);
  try {
    return {
      stream: gatherFromFile(file, file.get(), indices, options),
      close: () => file.close(),
    };
  } catch (error) {
    await file.close();
    throw error;
  }
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

/** Copies the .npy on `npy` (header and declared data) to an unlinked temp file, opened. */
export async function spillNpyStream(npy: NpyOnStream, dir: string): Promise<TensorFile> {
  const path = join(dir, `.tensorops-${process.pid}-${Math.random().toString(36).slice(2)}.npy`);
  let fd: number;
  try {
    fd = openSync(path, 'wx+', 0o600);
  } catch (cause) {
    throw ioError(dir, 'write', cause);
  }
  try {
    unlinkSync(path);
    writeAll(fd, npy.headerBytes, dir);
    const { copyTo } = npy;
    if (copyTo !== undefined) await copyData(() => copyTo(fd), npy.label, dir);
    else {
      const buffer = new Uint8Array(COPY_BYTES);
      for (let got = await npy.read(buffer); got > 0; got = await npy.read(buffer)) {
        writeAll(fd, buffer.subarray(0, got), dir);
      }
    }
    // A pipe that ended early leaves a short file: the reader reports it as truncated.
    return await openTensorFile(`/proc/self/fd/${fd}`, { label: npy.label });
  } finally {
    closeSync(fd);
  }
}

/** A stream's copyTo, its failures told as reading the stream or writing the temp folder. */
async function copyData(copy: () => Promise<number>, label: string, dir: string): Promise<void> {
  try {
    await copy();
  } catch (failure) {
    const { op, cause } = failure as CopyFailure;
    throw op === 'write' ? ioError(dir, 'write', cause) : ioError(label, 'read', cause);
  }
}

function writeAll(fd: number, bytes: Uint8Array, dir: string): void {
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (cause) {
    throw ioError(dir, 'write', cause);
  }
}
