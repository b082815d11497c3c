// Copies bytes from a pipe to a file in a worker thread, by blocking read(2) and write(2). A pipe
// hands over at most its buffer (64 KiB) per read, and each asynchronous read is a round trip
// through the thread pool and the event loop: for 256 MB that is ~4,000 round trips, most of a
// second here, against ~0.2 s for `cat | cat > file` (docs/performance.md). The worker loops
// without them, while the main thread stays free to handle signals, and to read what is copied
// already: the worker counts the bytes written in shared memory (CopyProgress). Each read is
// written at once from a 64 KiB buffer, which stays in cache between the two copies (a 1 MiB
// buffer filled before each write made the copy ~1.8x slower); the count is published once per
// MiB, as an update per read would wake a waiting reader ~4,000 times for 256 MB.

import { createRequire } from 'node:module';

/** Where the copy failed: reading the pipe or writing the file. */
export interface CopyFailure {
  readonly op: 'read' | 'write';
  readonly cause: NodeJS.ErrnoException;
}

/**
 * The worker: waits for a job, writes `first` (bytes the caller already read from the pipe) and
 * then copies up to `bytes` more from `from` to `to`, and posts the count copied or the failure.
 * It publishes the bytes written in `progress` (see CopyProgress) after `first`, after each MiB,
 * and, with the copy's end, whichever way it ends, before it posts.
 */
const WORKER = `
const { readSync, writeSync } = require('node:fs');
const { parentPort } = require('node:worker_threads');
parentPort.once('message', ({ from, to, first, bytes, progress }) => {
  const cells = new BigInt64Array(progress);
  const publish = (written, ended) => {
    Atomics.store(cells, 0, BigInt(written));
    if (ended) Atomics.store(cells, 1, 1n);
    Atomics.add(cells, 2, 1n);
    Atomics.notify(cells, 2);
  };
  const buffer = Buffer.allocUnsafe(Math.min(bytes, 1 << 16));
  const writeAll = (data, length) => {
    for (let at = 0; at < length; ) at += writeSync(to, data, at, length - at);
  };
  let copied = 0;
  let published = 0;
  let op = 'write';
  try {
    writeAll(first, first.length);
    publish(first.length, false);
    while (copied < bytes) {
      op = 'read';
      const got = readSync(from, buffer, 0, Math.min(buffer.length, bytes - copied), null);
      if (got === 0) break;
      op = 'write';
      writeAll(buffer, got);
      copied += got;
      if (copied - published >= 1 << 20) {
        publish(first.length + copied, false);
        published = copied;
      }
    }
    publish(first.length + copied, true);
    parentPort.postMessage({ copied });
  } catch (error) {
    publish(Number(Atomics.load(cells, 0)), true);
    parentPort.postMessage({ failed: { op, code: error.code, message: error.message, syscall: error.syscall } });
  }
});
`;

type WaitAsync = (
  cells: BigInt64Array,
  index: number,
  value: bigint,
) => { async: boolean; value: Promise<string> | string };

/**
 * How far a copy has got, in memory the worker shares: cell 0 holds the bytes written to the file
 * (`first` included), cell 1 becomes 1 once the copy ended (done, short or failed), and cell 2
 * counts the updates, so that a waiter cannot miss one between its check and its wait.
 */
export class CopyProgress {
  readonly shared = new SharedArrayBuffer(3 * 8);
  private readonly cells = new BigInt64Array(this.shared);

  /** Bytes written to the file so far. */
  get written(): number {
    return Number(Atomics.load(this.cells, 0));
  }

  /** The copy ended: its outcome says how. */
  get ended(): boolean {
    return Atomics.load(this.cells, 1) !== 0n;
  }

  /**
   * Marks the progress in `shared` ended and wakes its waiters: what the worker does as it ends,
   * done again from this side for a worker that died without doing it.
   */
  static end(shared: SharedArrayBuffer): void {
    const cells = new BigInt64Array(shared);
    Atomics.store(cells, 1, 1n);
    Atomics.add(cells, 2, 1n);
    Atomics.notify(cells, 2);
  }

  /** Resolves once `bytes` are written or the copy ended, without blocking the thread. */
  async reach(bytes: number): Promise<void> {
    // ES2024's Atomics.waitAsync (Node 16+), which the ES2022 typings leave out.
    const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
    for (;;) {
      const seen = Atomics.load(this.cells, 2);
      if (this.written >= bytes || this.ended) return;
      const wait = waitAsync(this.cells, 2, seen);
      if (wait.async) await wait.value;
    }
  }
}

/** A worker thread started ahead of its copy: starting one takes 25-90 ms here. */
export interface PipeCopier {
  /**
   * Writes `first` to `to` (a file open for writing, at its offset), then copies up to `bytes`
   * more bytes from descriptor `from` (a pipe or socket in blocking mode); resolves to the count
   * copied from `from`, fewer only where the pipe ended, or rejects with a CopyFailure. Once only.
   * `progress` is a CopyProgress's shared memory, for a reader of the file while it is written.
   */
  copy(
    from: number,
    to: number,
    first: Uint8Array,
    bytes: number,
    progress?: SharedArrayBuffer,
  ): Promise<number>;
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
    copy(from, to, first, bytes, progress = new CopyProgress().shared) {
      worker.ref();
      worker.postMessage({ from, to, first, bytes, progress });
      return outcome.finally(() => {
        // A worker that died (terminated, or thrown out of its loop) never said the copy ended:
        // its readers would wait for ever, and a process with nothing else to do exits with 0.
        CopyProgress.end(progress);
        worker.unref();
      });
    },
    async stop() {
      await worker.terminate();
    },
  };
}
