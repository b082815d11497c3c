// GatherTree's fast backward walk in JavaScript, for integer step ids of up to 4 bytes.
import type { WordView } from '@tensorops/core/internal';
import type { Context } from './context.js';
import { parentError } from './errors.js';

/** Rows walked per batch entry before moving on; 4 measured best for [256, 256, 16]. */
const TILE = 4;

/**
 * `backtrack` for integer ids of up to 4 bytes (the fast path), which also notes where each beam
 * stops: one past its first end_token (the last one met walking backwards), else its length.
 * Knowing the stops lets the forward pass skip re-reading the output.
 *
 * Rows are taken TILE at a time per batch entry and four beams at a time, with the traced
 * beams in locals: V8 re-checks every typed-array access, so fewer accesses and wider loop
 * bodies are what make this faster than the plain row loop of `backtrack`.
 */
export function backtrackStops(
  T: number,
  B: number,
  K: number,
  lengths: Int32Array,
  parents: Int32Array,
  src: WordView,
  dst: WordView,
  end: number,
  ctx: Context,
): Int32Array {
  const BK = B * K;
  const K4 = K - (K % 4);
  const trace = new Int32Array(BK);
  const stops = new Int32Array(BK);
  for (let b = 0; b < B; b++) {
    const len = lengths[b] as number;
    for (let k = 0; k < K; k++) {
      trace[b * K + k] = k;
      stops[b * K + k] = len;
    }
  }
  // Rows T-1 .. 1 follow a parent; row 0 only reads (parent_ids[0] is never used).
  for (let top = T - 1; top >= 1; top -= TILE) {
    const bottom = Math.max(1, top - TILE + 1);
    for (let b = 0; b < B; b++) {
      const len = lengths[b] as number;
      const cb = b * K;
      let hi = top;
      for (; hi >= bottom && hi >= len; hi--) fillRow(dst, hi * BK + cb, K, end);
      if (hi < bottom) continue;
      let k = 0;
      for (; k < K4; k += 4) {
        const i = cb + k;
        let s0 = trace[i] as number;
        let s1 = trace[i + 1] as number;
        let s2 = trace[i + 2] as number;
        let s3 = trace[i + 3] as number;
        for (let t = hi; t >= bottom; t--) {
          const base = t * BK + cb;
          const d = base + k;
          const v0 = src[base + s0] as number;
          const v1 = src[base + s1] as number;
          const v2 = src[base + s2] as number;
          const v3 = src[base + s3] as number;
          dst[d] = v0;
          dst[d + 1] = v1;
          dst[d + 2] = v2;
          dst[d + 3] = v3;
          if (v0 === end || v1 === end || v2 === end || v3 === end) {
            if (v0 === end) stops[i] = t + 1;
            if (v1 === end) stops[i + 1] = t + 1;
            if (v2 === end) stops[i + 2] = t + 1;
            if (v3 === end) stops[i + 3] = t + 1;
          }
          const p0 = parents[base + s0] as number;
          const p1 = parents[base + s1] as number;
          const p2 = parents[base + s2] as number;
          const p3 = parents[base + s3] as number;
          // The OR is >= K whenever one parent is out of range (negatives set the sign bit);
          // it can also be >= K with all four in range, so the culprit is then looked for.
          if ((p0 | p1 | p2 | p3) >>> 0 >= K) {
            if (p0 >>> 0 >= K) throw parentError(ctx, t, b, s0, k);
            if (p1 >>> 0 >= K) throw parentError(ctx, t, b, s1, k + 1);
            if (p2 >>> 0 >= K) throw parentError(ctx, t, b, s2, k + 2);
            if (p3 >>> 0 >= K) throw parentError(ctx, t, b, s3, k + 3);
          }
          s0 = p0;
          s1 = p1;
          s2 = p2;
          s3 = p3;
        }
        trace[i] = s0;
        trace[i + 1] = s1;
        trace[i + 2] = s2;
        trace[i + 3] = s3;
      }
      for (; k < K; k++) {
        let s = trace[cb + k] as number;
        for (let t = hi; t >= bottom; t--) {
          const base = t * BK + cb;
          const v = src[base + s] as number;
          dst[base + k] = v;
          if (v === end) stops[cb + k] = t + 1;
          const p = parents[base + s] as number;
          if (p >>> 0 >= K) throw parentError(ctx, t, b, s, k);
          s = p;
        }
        trace[cb + k] = s;
      }
    }
  }
  if (T > 0) {
    for (let b = 0; b < B; b++) {
      const cb = b * K;
      if ((lengths[b] as number) < 1) {
        fillRow(dst, cb, K, end);
        continue;
      }
      for (let k = 0; k < K; k++) {
        const v = src[cb + (trace[cb + k] as number)] as number;
        dst[cb + k] = v;
        if (v === end) stops[cb + k] = 1;
      }
    }
  }
  return stops;
}

/** K copies of `end` from `base`; a call to fill costs more than a loop for small widths. */
function fillRow(dst: WordView, base: number, K: number, end: number): void {
  if (K < 64) for (let k = 0; k < K; k++) dst[base + k] = end;
  else dst.fill(end, base, base + K);
}
