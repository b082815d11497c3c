// Copies bytes from a pipe to a file in a worker thread, by blocking read(2) and write(2). A pipe
// hands over at most its buffer (64 KiB) per read, and each asynchronous read is a round trip
// through the thread pool and the event loop: for 256 MB that is ~4,000 round trips, most of a
// second here, against ~0.2 s for `cat | cat > file` (docs/performance.md). The worker loops
// without them, while the main thread stays free to handle signals.

import { createRequire } from 'node:module';

/** Where the copy failed: reading the pipe or writing the file. */
export interface CopyFailure {
  readonly op: 'read' | 'write';
  readonly cause: NodeJS.ErrnoException;
}

/**
 * The worker: waits for a job, writes `first` (bytes the caller already read from the pipe) and
 * then copies up to `bytes` more from `from` to `to`, and posts the count copied or the failure.
 */
const WORKER = `
const { readSync, writeSync } = require('node:fs');
const { parentPort } = require('node:worker_threads');
parentPort.once('message', ({ from, to, first, bytes }) => {
  const buffer = Buffer.allocUnsafe(Math.min(bytes, 1 << 20));
  const writeAll = (data, length) => {
    for (let at = 0; at < length; ) at += writeSync(to, data, at, length - at);
  };
  let copied = 0;
  let op = 'write';
  try {
    writeAll(first, first.length);
    while (copied < bytes) {
      op = 'read';
      const got = readSync(from, buffer, 0, Math.min(buffer.length, bytes - copied), null);
      if (got === 0) break;
      op = 'write';
      writeAll(buffer, got);
      copied += got;
    }
    parentPort.postMessage({ copied });
  } catch (error) {
    parentPort.postMessage({ failed: { op, code: error.code, message: error.message, syscall: error.syscall } });
  }
});
`;

/** A worker thread started ahead of its copy: starting one takes ~90 ms here. */
export interface PipeCopier {
  /**
   * Writes `first` to `to` (a file open for writing, at its offset), then copies up to `bytes`
   * more bytes from descriptor `from` (a pipe or socket in blocking mode); resolves to the count
   * copied from `from`, fewer only where the pipe ended, or rejects with a CopyFailure. Once only.
   */
  copy(from: number, to: number, first: Uint8Array, bytes: number): Promise<number>;
  /** Ends the worker when no copy is wanted. */
  stop(): Promise<void>;
}

/** Starts a copier's worker; it holds the process open only while it copies. */
export function startPipeCopier(): PipeCopier {
  // Required here, not imported: node:worker_threads is loaded only by a run that copies a pipe.
  const { Worker } = createRequire(import.meta.url)(
    'node:worker_threads',
  ) as typeof import('node:worker_threads');
  const worker = new Worker(WORKER, { eval: true });
  worker.unref();
  const outcome = new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { copied?: number; failed?: Record<string, string> }) => {
      if (m.failed === undefined) return resolve(m.copied as number);
      const { op, message, ...fields } = m.failed;
      reject({
        op: op as CopyFailure['op'],
        cause: Object.assign(new Error(message), fields),
      } satisfies CopyFailure);
    });
    worker.once('error', (cause) => reject({ op: 'read', cause } satisfies CopyFailure));
    // Settled already unless the worker died without a word.
    worker.once('exit', (code) =>
      reject({ op: 'read', cause: new Error(`copy worker exited with code ${code}`) }),
    );
  });
  // Observed by copy(); this only keeps an unused copier's end from being reported as unhandled.
  outcome.catch(() => {});
  return {
    copy(from, to, first, bytes) {
      worker.ref();
      worker.postMessage({ from, to, first, bytes });
      return outcome.finally(() => worker.unref());
    },
    async stop() {
      await worker.terminate();
    },
  };
}
