// How far a pipe's copy has got, in memory shared by the copy's worker thread and the readers of
// the file it writes. Both sides publish through publishProgress, so the protocol is written once:
// cell WRITTEN holds the bytes written to the file, cell ENDED becomes 1 once the copy ended (done,
// short or failed), and cell UPDATES counts the updates, so that a waiter cannot miss one between
// its check and its wait.

const WRITTEN = 0;
const ENDED = 1;
const UPDATES = 2;
const CELLS = 3;

/**
 * Publishes an update and wakes the waiters: `written` bytes (unchanged when undefined) and, with
 * `ended`, the end of the copy.
 */
export function publishProgress(
  shared: SharedArrayBuffer,
  written: number | undefined,
  ended: boolean,
): void {
  const cells = new BigInt64Array(shared);
  if (written !== undefined) Atomics.store(cells, WRITTEN, BigInt(written));
  if (ended) Atomics.store(cells, ENDED, 1n);
  Atomics.add(cells, UPDATES, 1n);
  Atomics.notify(cells, UPDATES);
}

type WaitAsync = (
  cells: BigInt64Array,
  index: number,
  value: bigint,
) => { async: boolean; value: Promise<string> | string };

/** A copy's progress as its readers see it (see the header). */
export class CopyProgress {
  readonly shared = new SharedArrayBuffer(CELLS * 8);
  private readonly cells = new BigInt64Array(this.shared);

  /** Bytes written to the file so far. */
  get written(): number {
    return Number(Atomics.load(this.cells, WRITTEN));
  }

  /** The copy ended: its outcome says how. */
  get ended(): boolean {
    return Atomics.load(this.cells, ENDED) !== 0n;
  }

  /** Updates published so far. */
  get updates(): bigint {
    return Atomics.load(this.cells, UPDATES);
  }

  /** Resolves once `bytes` are written or the copy ended, without blocking the thread. */
  async reach(bytes: number): Promise<void> {
    // ES2024's Atomics.waitAsync (Node 16+), which the ES2022 typings leave out.
    const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
    for (;;) {
      const seen = Atomics.load(this.cells, UPDATES);
      if (this.written >= bytes || this.ended) return;
      const wait = waitAsync(this.cells, UPDATES, seen);
      if (wait.async) await wait.value;
    }
  }
}
