// Atomic writes: the target either keeps its old content or gets the complete new file, never a
// partial one. Data goes to a uniquely named temp file in the target's folder (so the rename stays
// on one file system), then is renamed over the target.
//
// Durability: when the rename replaces an existing file, the data (and then the folder) is fsynced
// first, so that a power cut cannot leave an empty or partial file where the user's old data was.
// A new path is not fsynced, as `cp` and numpy's `np.save` do not: a crash can then lose only the
// new output, which running the command again recreates.
//
// The temp file is created and renamed with synchronous calls on purpose: a signal handler runs
// between JavaScript tasks, so it always sees the temp file registered exactly when it exists (an
// open or rename still running on a worker thread could recreate or move it after the handler).

import { closeSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { TensorOpsError } from '@tensorops/core';
import { fileError, ioError } from '../file/errors.js';
import { chmodPath, chownPath, closeFd, fsyncFd, openFd, writeFd } from './fs-calls.js';

/** One buffer, or a sequence of chunks produced lazily (an encoder may fail half-way). */
export type ByteChunks = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

const IO_CHUNK = 1 << 30;
const pending = new Set<string>();
let counter = 0;

function tempPathFor(path: string): string {
  const tag = `${process.pid}.${(counter++).toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
  return join(dirname(path), `.${basename(path)}.${tag}.tmp`);
}

export async function* chunksOf(data: ByteChunks): AsyncIterable<Uint8Array> {
  if (data instanceof Uint8Array) yield data;
  else yield* data;
}

/**
 * Temp files still being written. A signal handler (the CLI owns those) calls this before exiting
 * so that an interrupted write leaves nothing behind.
 */
export function removePendingTempFilesSync(): void {
  for (const temp of pending) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Best effort: we are already on the way out.
    }
    pending.delete(temp);
  }
}

/** What the new file takes over from the one it replaces (as `cp` onto an existing file). */
export interface ReplacedFile {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/** Creates and registers the temp file for `path` (a fresh name on the rare collision). */
function createTemp(path: string): { temp: string; fd: number } {
  for (let attempt = 0; ; attempt++) {
    const temp = tempPathFor(path);
    try {
      const fd = openSync(temp, 'wx');
      pending.add(temp);
      return { temp, fd };
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 5) continue;
      throw folderTakesNoNewFiles(path, cause) ?? ioError(path, 'write', cause);
    }
  }
}

/**
 * The true reason for ENOENT on creating the temp file in a folder that exists: the folder (a
 * kernel file system such as /proc) makes no new files, so even an existing file there cannot be
 * replaced. Undefined when the folder is missing, for which ENOENT's wording is right.
 */
function folderTakesNoNewFiles(path: string, cause: unknown): TensorOpsError | undefined {
  if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  const folder = dirname(path);
  try {
    if (!statSync(folder).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return new TensorOpsError(
    'E_IO',
    `${path}: cannot write: its folder ${folder} takes no new files (an output is written to a new file beside its path, then renamed)`,
    { cause },
  );
}

/** Writes every chunk of `data` to `fd`, at its offset. */
export async function writeAllTo(fd: number, data: ByteChunks): Promise<void> {
  for await (const chunk of chunksOf(data)) {
    for (let at = 0; at < chunk.byteLength; ) {
      const length = Math.min(IO_CHUNK, chunk.byteLength - at);
      at += (await writeFd(fd, chunk, at, length, null)).bytesWritten;
    }
  }
}

/** Gives the temp file the replaced file's mode (and owner, when we may), before it is renamed. */
async function takeOver(temp: string, replaced: ReplacedFile): Promise<void> {
  await chmodPath(temp, replaced.mode & 0o7777);
  if (process.getuid?.() === 0) await chownPath(temp, replaced.uid, replaced.gid).catch(() => {});
}

/**
 * Writes `data` to `path` atomically: temp file beside the target, write, rename (with an fsync
 * before the rename, and of the folder after it, when `replaced` says a file is replaced). On any
 * error the temp file is removed and the target is left as it was. `replaced` carries the mode
 * (and, for root, the owner) of the file being replaced. Errors are TensorOpsErrors naming the
 * path (E_IO for file-system failures; an encoder's own TensorOpsError keeps its code).
 */
export async function writeFileAtomic(
  path: string,
  data: ByteChunks,
  replaced?: ReplacedFile,
): Promise<void> {
  const { temp, fd } = createTemp(path);
  let fdOpen = true;
  try {
    await writeAllTo(fd, data);
    if (replaced !== undefined) await fsyncFd(fd);
    closeSync(fd);
    fdOpen = false;
    if (replaced !== undefined) await takeOver(temp, replaced);
    renameSync(temp, path);
    pending.delete(temp);
  } catch (cause) {
    if (fdOpen) closeSync(fd);
    rmSync(temp, { force: true });
    pending.delete(temp);
    throw fileError(path, 'write', cause);
  }
  if (replaced !== undefined) await syncDirectory(dirname(path));
}

/** Makes the rename itself durable. Not possible everywhere (Windows), hence best effort. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const fd = await openFd(dir, 'r');
    try {
      await fsyncFd(fd);
    } finally {
      await closeFd(fd);
    }
  } catch {
    // The data is already synced and renamed; only crash-durability of the name is at stake.
  }
}

/**
 * Writes chunks to a stream (e.g. process.stdout), waiting for 'drain' under backpressure, and
 * resolves once the last chunk is handed to the OS. Failures (EPIPE when the reader went away)
 * become E_IO errors whose `cause` keeps the original code; the chunk source is closed at once.
 */
export async function writeStream(
  stream: Writable,
  data: ByteChunks,
  label = 'stream',
): Promise<void> {
  let failure: unknown;
  const onError = (error: unknown) => {
    failure ??= error;
  };
  stream.on('error', onError);
  try {
    let last: Promise<void> = Promise.resolve();
    for await (const chunk of chunksOf(data)) {
      if (failure !== undefined) break;
      let ok = true;
      last = new Promise<void>((resolve, reject) => {
        ok = stream.write(chunk, (error) => (error ? reject(error) : resolve()));
      });
      last.catch(() => {}); // observed below; avoids an unhandled rejection while we wait
      if (!ok) await waitForDrain(stream);
    }
    await last;
    if (failure !== undefined) throw failure;
  } catch (cause) {
    throw fileError(label, 'write', cause);
  } finally {
    stream.off('error', onError);
  }
}

function waitForDrain(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: unknown) => {
      stream.off('drain', onDrain);
      stream.off('error', onFail);
      stream.off('close', onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = () => done();
    const onFail = (error: unknown) => done(error);
    const onClose = () => done(Object.assign(new Error('stream closed'), { code: 'EPIPE' }));
    stream.on('drain', onDrain);
    stream.on('error', onFail);
    stream.on('close', onClose);
  });
}

/** {@link writeStream} to standard output. */
export function writeStdout(data: ByteChunks): Promise<void> {
  return writeStream(process.stdout, data, 'stdout');
}
