// Timing: warm-up runs first, then the median of timed runs, with a full GC before each run so
// one run's garbage (hundreds of MB of outputs) is never collected inside another's timing.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** A full collection, also when node was started without --expose-gc. */
export const gc = globalThis.gc ?? runInNewContext('gc');

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Median milliseconds of `fn` over `runs` timed runs after `warmup` untimed ones.
 * `fn` returns its result so that it stays alive until the clock stops.
 */
export function timeRuns(fn, { runs, warmup }) {
  // biome-ignore lint/correctness/noUnusedVariables: holds each result until the clock stops
  let keep;
  for (let i = 0; i < warmup; i++) keep = fn();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    keep = undefined;
    gc();
    const t0 = performance.now();
    keep = fn();
    ms.push(performance.now() - t0);
  }
  keep = undefined;
  gc();
  return { ms: median(ms), all: ms };
}

/**
 * A warm memcpy of `bytes` bytes: Uint8Array.prototype.set between two buffers that were both
 * written before timing, so no page faults count. The ceiling a byte-moving kernel can reach.
 */
export function timeMemcpy(bytes, opts) {
  const src = new Uint8Array(bytes).fill(7);
  const dst = new Uint8Array(bytes).fill(1);
  const r = timeRuns(() => dst.set(src), opts);
  return r;
}

export const gbps = (bytes, ms) => bytes / 1e6 / ms;

/** timeRuns for an async `fn` (onnxruntime's session.run). */
export async function timeRunsAsync(fn, { runs, warmup }) {
  // biome-ignore lint/correctness/noUnusedVariables: holds each result until the clock stops
  let keep;
  for (let i = 0; i < warmup; i++) keep = await fn();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    keep = undefined;
    gc();
    const t0 = performance.now();
    keep = await fn();
    ms.push(performance.now() - t0);
  }
  keep = undefined;
  gc();
  return { ms: median(ms), all: ms };
}
