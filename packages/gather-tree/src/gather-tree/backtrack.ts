// GatherTree's plain backward walks in JavaScript: float step ids (4 bytes) and 8-byte ids.
import type { WordView } from '@tensorops/core/internal';
import type { Context } from './context.js';
import { parentError } from './errors.js';

/**
 * The backward pass, time-major: at each level every beam still inside its batch's length
 * copies the step id of the beam it currently traces and moves to that beam's parent. Walking
 * rows (not one beam at a time down the time axis) keeps the reads within a [BATCH, BEAM] row,
 * which is what makes this cache-friendly at large sizes.
 */
export function backtrack(ctx: Context, src: WordView, dst: WordView): void {
  const { T, B, K, lengths, parents } = ctx;
  const BK = B * K;
  const trace = new Int32Array(BK);
  for (let t = T - 1; t >= 0; t--) {
    const row = t * BK;
    for (let b = 0; b < B; b++) {
      const len = lengths[b] as number;
      if (t >= len) continue;
      const cb = b * K;
      const base = row + cb;
      if (t === len - 1) for (let k = 0; k < K; k++) trace[cb + k] = k;
      if (t === 0) {
        for (let k = 0; k < K; k++) dst[base + k] = src[base + (trace[cb + k] as number)] as number;
        continue;
      }
      for (let k = 0; k < K; k++) {
        const s = base + (trace[cb + k] as number);
        dst[base + k] = src[s] as number;
        const p = parents[s] as number;
        if (p >>> 0 >= K) throw parentError(ctx, t, b, s - base, k);
        trace[cb + k] = p;
      }
    }
  }
}

/** `backtrack` for 8-byte elements, moved as two int32 words. */
export function backtrackPairs(ctx: Context, src: Int32Array, dst: Int32Array): void {
  const { T, B, K, lengths, parents } = ctx;
  const BK = B * K;
  const trace = new Int32Array(BK);
  for (let t = T - 1; t >= 0; t--) {
    const row = t * BK;
    for (let b = 0; b < B; b++) {
      const len = lengths[b] as number;
      if (t >= len) continue;
      const cb = b * K;
      const base = row + cb;
      if (t === len - 1) for (let k = 0; k < K; k++) trace[cb + k] = k;
      for (let k = 0; k < K; k++) {
        const s = base + (trace[cb + k] as number);
        const d = (base + k) * 2;
        dst[d] = src[2 * s] as number;
        dst[d + 1] = src[2 * s + 1] as number;
        if (t > 0) {
          const p = parents[s] as number;
          if (p >>> 0 >= K) throw parentError(ctx, t, b, s - base, k);
          trace[cb + k] = p;
        }
      }
    }
  }
}
