// Atomic writes: the target either keeps its old content or gets the complete new file, never a
// partial one. Data goes to a uniquely named temp file in the target's folder (so the rename stays
// on one file system), is fsynced, then renamed over the target.

import { rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileError, ioError } from './errors.js';

/** One buffer, or a sequence of chunks produced lazily (an encoder may fail half-way). */
export type ByteChunks = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

const IO_CHUNK = 1 << 30;
const pending = new Set<string>();
let counter = 0;

function tempPathFor(path: string): string {
  const tag = `${process.pid}.${(counter++).toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
  return join(dirname(path), `.${basename(path)}.${tag}.tmp`);
}

async function* chunksOf(data: ByteChunks): AsyncIterable<Uint8Array> {
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

/**
 * Writes `data` to `path` atomically: temp file beside the target, write, fsync, rename. On any
 * error the temp file is removed and the target is left as it was. Errors are TensorOpsErrors
 * naming the path (E_IO for file-system failures; an encoder's own TensorOpsError keeps its code).
 */
export async function writeFileAtomic(path: string, data: ByteChunks): Promise<void> {
  let temp = tempPathFor(path);
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  for (let attempt = 0; fh === undefined; attempt++) {
    // Registered before the file exists: a signal may arrive before open() returns to us.
    pending.add(temp);
    try {
      fh = await open(temp, 'wx');
    } catch (cause) {
      pending.delete(temp);
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 5) {
        temp = tempPathFor(path);
        continue;
      }
      throw ioError(path, 'write', cause);
    }
  }
  try {
    for await (const chunk of chunksOf(data)) {
      for (let at = 0; at < chunk.byteLength; ) {
        const { bytesWritten } = await fh.write(
          chunk,
          at,
          Math.min(IO_CHUNK, chunk.byteLength - at),
        );
        at += bytesWritten;
      }
    }
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(temp, path);
    pending.delete(temp);
  } catch (cause) {
    await fh?.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
    pending.delete(temp);
    throw fileError(path, 'write', cause);
  }
  await syncDirectory(dirname(path));
}

/** Makes the rename itself durable. Not possible everywhere (Windows), hence best effort. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The data is already synced and renamed; only crash-durability of the name is at stake.
  }
}

/**
 * Writes chunks to a stream (e.g. process.stdout), waiting for 'drain' under backpressure, and
 * resolves once the last chunk is handed to the OS. Failures (EPIPE when the reader went away)
 * become E_IO errors whose `cause` keeps the original code.
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
