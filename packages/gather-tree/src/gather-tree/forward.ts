// GatherTree's forward passes: end_token past each beam's length and from its first end_token on.
import type { WordView } from '@tensorops/core/internal';
import type { Context } from './context.js';
import { stepError } from './errors.js';

/**
 * end_token from each beam's stop up to its length (the rows past the length are already filled);
 * a batch's rows before its earliest stop are skipped.
 */
export function fillEnded(
  T: number,
  B: number,
  K: number,
  lengths: Int32Array,
  dst: WordView,
  end: number,
  stops: Int32Array,
): void {
  const BK = B * K;
  const first = new Int32Array(B);
  for (let b = 0; b < B; b++) {
    let m = lengths[b] as number;
    for (let i = b * K; i < (b + 1) * K; i++) {
      const stop = stops[i] as number;
      if (stop < m) m = stop;
    }
    first[b] = m;
  }
  for (let t = 0; t < T; t++) {
    const row = t * BK;
    for (let b = 0; b < B; b++) {
      if (t < (first[b] as number) || t >= (lengths[b] as number)) continue;
      const cb = b * K;
      const base = row + cb;
      for (let k = 0; k < K; k++) if (t >= (stops[cb + k] as number)) dst[base + k] = end;
    }
  }
}

/** The forward pass for 64-bit integer ids: end_token past each length and after the first one. */
export function maskPairs(ctx: Context, dst: Int32Array, endLo: number, endHi: number): void {
  const { T, B, K, lengths } = ctx;
  const BK = B * K;
  const done = new Uint8Array(BK);
  for (let t = 0; t < T; t++) {
    const row = t * BK;
    for (let b = 0; b < B; b++) {
      const cb = b * K;
      const past = t >= (lengths[b] as number);
      for (let k = 0; k < K; k++) {
        const d = (row + cb + k) * 2;
        if (past || done[cb + k] === 1) {
          dst[d] = endLo;
          dst[d + 1] = endHi;
        } else if (dst[d] === endLo && dst[d + 1] === endHi) {
          done[cb + k] = 1;
        }
      }
    }
  }
}

/**
 * The forward pass for float ids. Values compare as numbers (so -0 matches an end token 0); only
 * the values that survive into the output must be integral. Writes go through int32 words so the
 * surviving elements keep their exact bits.
 */
export function maskFloat(
  ctx: Context,
  values: Float32Array | Float64Array,
  dst: Int32Array,
  end: number,
  endWords: Int32Array,
  words: 1 | 2,
): void {
  const { T, B, K, lengths } = ctx;
  const BK = B * K;
  const done = new Uint8Array(BK);
  const endLo = endWords[0] as number;
  const endHi = endWords[1] as number;
  for (let t = 0; t < T; t++) {
    const row = t * BK;
    for (let b = 0; b < B; b++) {
      const cb = b * K;
      const past = t >= (lengths[b] as number);
      for (let k = 0; k < K; k++) {
        const i = row + cb + k;
        if (past || done[cb + k] === 1) {
          dst[i * words] = endLo;
          if (words === 2) dst[i * 2 + 1] = endHi;
          continue;
        }
        const v = values[i] as number;
        if (v === end) done[cb + k] = 1;
        else if (!Number.isInteger(v)) throw stepError(ctx, t, b, k, v);
      }
    }
  }
}
