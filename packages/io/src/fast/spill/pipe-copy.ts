// Copies bytes from a pipe to a file in a worker thread (copy-worker.ts, run from the text the
// build makes of it). Each asynchronous read of a pipe is a round trip through the thread pool and
// the event loop for at most one pipe buffer; the worker's blocking loop has none, while the main
// thread stays free to handle signals and to read what is copied already (CopyProgress).

import { createRequire } from 'node:module';
import type { CopyOutcome } from './copy-loop.js';
import { CopyProgress, publishProgress } from './copy-progress.js';
import { COPY_WORKER_SOURCE } from './copy-worker-source.js';

/** Where the copy failed: reading the pipe or writing the file. */
export interface CopyFailure {
  readonly op: 'read' | 'write';
  readonly cause: NodeJS.ErrnoException;
}

/** A worker thread started ahead of its copy, as starting one takes a while. */
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
  const worker = new Worker(COPY_WORKER_SOURCE, { eval: true });
  worker.unref();
  const outcome = new Promise<number>((resolve, reject) => {
    worker.once('message', (m: CopyOutcome) => {
      if ('copied' in m) return resolve(m.copied);
      const { op, message, ...fields } = m.failed;
      reject({ op, cause: Object.assign(new Error(message), fields) } satisfies CopyFailure);
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
        publishProgress(progress, undefined, true);
        worker.unref();
      });
    },
    async stop() {
      await worker.terminate();
    },
  };
}
