// An async step over every item of a list with a bounded number in flight: many small remote
// reads (a sharded checkpoint's shard headers) overlap their round trips, and a list of any
// length never has more than `limit` requests or open attempts at once.

/** Every step's result, or the failure a loop running the steps one by one would have met. */
export type BoundedOutcome<R> =
  | { readonly ok: true; readonly results: R[] }
  | {
      readonly ok: false;
      readonly error: unknown;
      /** What the steps that succeeded made, for the caller to release. */
      readonly results: (R | undefined)[];
    };

/**
 * Runs `step` on every item, at most `limit` at once, started in list order. After a failure no
 * step starts; the call still waits for the ones running, so that nothing they make is left
 * behind. The error returned is the earliest in list order: every step before a failed one had
 * started, so it is the one a sequential loop would have stopped at.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  step: (item: T) => Promise<R>,
): Promise<BoundedOutcome<R>> {
  const results: (R | undefined)[] = new Array(items.length);
  let failedAt = -1;
  let error: unknown;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && failedAt === -1) {
      const at = next++;
      try {
        results[at] = await step(items[at] as T);
      } catch (cause) {
        if (failedAt === -1 || at < failedAt) {
          failedAt = at;
          error = cause;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return failedAt === -1 ? { ok: true, results: results as R[] } : { ok: false, error, results };
}
