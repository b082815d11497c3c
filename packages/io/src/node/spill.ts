// A gather from a .npy on a pipe. The pipe can be read only once, so either its picks are copied
// out as it passes (the stream sweep, which holds the whole output in fresh memory), or it is
// first copied to a temp file and gathered from there like any file (the passes strategy, whose
// buffers are reused). spillPays decides by the same costs as the file strategies. The temp file
// is unlinked the moment it is created, so nothing is left behind, whatever ends the process, and
// read through /proc/self/fd (Linux); elsewhere, without room in the temp folder, or where no
// file can be made there (it is missing, not a folder, read-only, not ours), the pipe is swept. Where a worker thread copies (a pipe given as a descriptor), the gather reads through the
// copy's own descriptor and starts at once: each read waits until the copy has got past it, so
// planning and the first pass over the data run while the rest is still arriving.

import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  statfsSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { dtypeSize, planGather, type Tensor, TensorOpsError } from '@tensorops/core';
import { spillPays } from '../fast/pick-mode.js';
import type { FileDescriptor, Releasable } from '../file/capabilities.js';
import { ioError } from '../file/errors.js';
import {
  type FileGatherOptions,
  type FileGatherStream,
  gatherFromFile,
} from '../file/gather-file/index.js';
import {
  gatherFromNpyStream,
  type NpyOnStream,
  type StreamGatherStream,
} from '../file/gather-file/stream-sweep.js';
import { npyReader, npyStoredTensor } from '../file/npy-file.js';
import type { ByteSource } from '../file/source.js';
import { rangeReadable, type TensorFile, tensorFile } from '../file/stored.js';
import type { TensorStream } from '../file/tensor-stream.js';
import { type CopyFailure, CopyProgress } from './pipe-copy.js';
import { readInto } from './read.js';
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
 * `options` are gatherFromFile's: its chunk sizes apply to either way.
 */
export async function gatherFromPipe(
  npy: NpyOnStream,
  indices: Tensor,
  options: FileGatherOptions = {},
  dir: string = process.getBuiltinModule('node:os').tmpdir(),
): Promise<PipeGather> {
  const { header } = npy;
  const plan = planGather(header, indices, options);
  let outBytes = dtypeSize(header.dtype);
  for (const d of plan.outShape) outBytes *= d;
  const spill =
    rangeReadable(npyStoredTensor(header)) &&
    spillPays(header.nbytes, outBytes, options.chunkBytes ?? CHUNK_BYTES) &&
    hasRoom(dir, header.nbytes);
  // Nothing of the pipe is read before the temp file holds its header: any way the folder fails
  // leaves the sweep, which needs no folder.
  const fd = spill ? tempCopyOrUndefined(dir, npy.headerBytes) : undefined;
  if (fd === undefined) {
    return { stream: gatherFromNpyStream(npy, indices, options), close: async () => {} };
  }
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
  const spilled = await startSpill(npy, tempCopy(dir, npy.headerBytes), dir);
  try {
    await spilled.copied;
  } catch (error) {
    await spilled.close();
    throw error;
  }
  return spilled.file;
}

interface Spill {
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
async function startSpill(npy: NpyOnStream, fd: number, dir: string): Promise<Spill> {
  const { copyTo, label, headerBytes } = npy;
  if (copyTo === undefined) {
    try {
      const buffer = new Uint8Array(COPY_BYTES);
      for (let got = await npy.read(buffer); got > 0; got = await npy.read(buffer)) {
        writeAll(fd, buffer.subarray(0, got), dir);
      }
      // A pipe that ended early leaves a short file: the reader reports it as truncated.
      const file = await openTensorFile(`/proc/self/fd/${fd}`, { label });
      return { file, copied: Promise.resolve(), close: () => file.close() };
    } finally {
      closeSync(fd);
    }
  }
  const progress = new CopyProgress();
  const copied = copyData(() => copyTo(fd, progress.shared), label, dir).then((count) => {
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

/** A new temp file in `dir` holding `headerBytes`, open for reading and writing, unlinked. */
function tempCopy(dir: string, headerBytes: Uint8Array): number {
  const fd = openUnlinkedTemp(dir);
  try {
    writeAll(fd, headerBytes, dir);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** {@link tempCopy}, or undefined where `dir` cannot hold one. */
function tempCopyOrUndefined(dir: string, headerBytes: Uint8Array): number | undefined {
  try {
    return tempCopy(dir, headerBytes);
  } catch {
    return undefined;
  }
}

/** A new temp file in `dir`, open for reading and writing and already unlinked. */
function openUnlinkedTemp(dir: string): number {
  const path = join(dir, `.tensorops-${process.pid}-${Math.random().toString(36).slice(2)}.npy`);
  let fd: number;
  try {
    fd = openSync(path, 'wx+', 0o600);
  } catch (cause) {
    throw ioError(dir, 'write', cause);
  }
  try {
    unlinkSync(path);
  } catch (cause) {
    closeSync(fd);
    throw ioError(dir, 'write', cause);
  }
  return fd;
}

/**
 * The temp file of a copy in progress, through the copy's own descriptor, as a source of the size
 * its header declares: each read waits until the copy has written past its end (or ended), then
 * reads the file; once the whole file is there, a release cuts it short. The worker writes at the
 * descriptor's offset, the reads are positional.
 */
class SpillSource implements ByteSource, FileDescriptor, Releasable {
  private closed = false;

  constructor(
    readonly label: string,
    readonly fd: number,
    private readonly headerBytes: number,
    private readonly dataBytes: number,
    private readonly progress: CopyProgress,
    private readonly copied: Promise<void>,
  ) {}

  get size(): number {
    return this.headerBytes + this.dataBytes;
  }

  /** The copy is over and the file holds all the data its header declares. */
  private get whole(): boolean {
    return this.progress.ended && this.progress.written >= this.dataBytes;
  }

  async read(target: Uint8Array, position: number): Promise<number> {
    const end = Math.min(position + target.length, this.size);
    await this.progress.reach(end - this.headerBytes);
    // Short: the copy failed (its error) or the pipe ended (the file is short, the read says so).
    if (this.headerBytes + this.progress.written < end) await this.copied;
    return readInto(this.fd, target, position);
  }

  /**
   * Frees the file's pages from `position` on (page cache the next writes of the run reuse, where
   * fresh memory costs a fault per page). Only once the copy is whole: the worker writes no more.
   */
  release(position: number): void {
    if (this.closed || !this.whole) return;
    try {
      ftruncateSync(this.fd, Math.max(this.headerBytes, position));
    } catch {
      // A hint only: where the cut fails, the pages are freed when the file is closed.
    }
  }

  /** Once only: a second close could close a descriptor number reused by then. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
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

function writeAll(fd: number, bytes: Uint8Array, dir: string): void {
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (cause) {
    throw ioError(dir, 'write', cause);
  }
}
