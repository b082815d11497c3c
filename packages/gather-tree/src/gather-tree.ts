import {
  checkTensor,
  createTensor,
  type Dtype,
  dtypeSize,
  formatPosition,
  formatShape,
  isIntegerDtype,
  type OutputOption,
  shapesEqual,
  type Tensor,
  TensorOpsError,
  tensorValues,
} from '@tensorops/core';
import { alignedView, outputTensor, valueView } from '@tensorops/core/internal';
import { type EndToken, isStepDtype, resolveEndToken, STEP_DTYPES, show } from './end-token.js';
import { backtrackWasm } from './wasm-walk.js';

const OP = 'GatherTree';

/** `out`: as the core ops' (the output has `stepIds`' dtype and shape). */
export type GatherTreeOptions = Pick<OutputOption, 'out'>;

/**
 * Rebuilds complete beams from per-step ids and parent beam pointers (OpenVINO GatherTree-1,
 * TensorFlow Addons `gather_tree`), with the fixes of docs/design.md §3.4:
 * - `stepIds`, `parentIds`: [MAX_TIME, BATCH, BEAM]; `maxSeqLen`: [BATCH]; `endToken` a scalar.
 * - max_seq_len is clamped to [0, MAX_TIME]; 0 or negative leaves the whole beam end_token.
 * - Only the parents actually followed are read and validated, against [0, BEAM);
 *   parent_ids[0] is never read.
 * - From the first end_token on, every step of a beam is end_token.
 * - The output has the dtype of `stepIds`; step values are copied bit for bit.
 *
 * step ids: int8..uint64, float32, float64 (float values must be integral where they survive
 * into the output). parent ids and max_seq_len: any integer dtype or integral float32/float64,
 * independent of the step dtype. end_token must be exactly representable in the step dtype.
 *
 * @example
 * gatherTree(
 *   tensorFrom('int32', [3, 1, 2], [1, 2, 3, 4, 5, 6]),
 *   tensorFrom('int32', [3, 1, 2], [0, 0, 1, 0, 1, 0]),
 *   tensorFrom('int32', [1], [3]),
 *   0,
 * ) // int32 [3, 1, 2]: [1, 2, 4, 3, 5, 6] (beam 0: 1 4 5, beam 1: 2 3 6)
 */
export function gatherTree(
  stepIds: Tensor,
  parentIds: Tensor,
  maxSeqLen: Tensor,
  endToken: EndToken,
  options: GatherTreeOptions = {},
): Tensor {
  checkTensor(stepIds, `${OP}: step_ids`);
  checkTensor(parentIds, `${OP}: parent_ids`);
  checkTensor(maxSeqLen, `${OP}: max_seq_len`);
  const dtype = stepIds.dtype;
  if (stepIds.shape.length !== 3) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${OP}: step_ids must have rank 3 [MAX_TIME, BATCH, BEAM], got shape ${formatShape(stepIds.shape)}`,
    );
  }
  if (!isStepDtype(dtype)) {
    throw new TensorOpsError(
      'E_DTYPE',
      `${OP}: step_ids dtype ${dtype} not supported; expected one of ${STEP_DTYPES.join(', ')}`,
    );
  }
  checkIndexDtype(parentIds.dtype, 'parent_ids');
  checkIndexDtype(maxSeqLen.dtype, 'max_seq_len');
  const [T, B, K] = stepIds.shape as [number, number, number];
  if (!shapesEqual(parentIds.shape, stepIds.shape)) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${OP}: parent_ids shape ${formatShape(parentIds.shape)} must equal step_ids shape ${formatShape(stepIds.shape)}`,
    );
  }
  if (maxSeqLen.shape.length !== 1 || maxSeqLen.shape[0] !== B) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${OP}: max_seq_len shape ${formatShape(maxSeqLen.shape)} must be [BATCH] = [${B}]`,
    );
  }
  const end = resolveEndToken(endToken, dtype, OP);
  const lengths = clampLengths(maxSeqLen, T);

  // Every element of the output is written below (the trace, or end_token), so a reused `out`
  // needs no clearing.
  const out = outputTensor(OP, options, dtype, stepIds.shape, [stepIds, parentIds, maxSeqLen]);
  if (out.data.byteLength === 0) return out;
  const size = dtypeSize(dtype);
  const parents = parentView(parentIds, K);
  const ctx: Context = { T, B, K, lengths, parents, parentIds, stepIds };
  // The backward walk in WebAssembly where it runs (beams of at most 16); null leaves it to the
  // JavaScript walks below, which also find and report a followed parent out of range.
  const stops = backtrackWasm(ctx, size, stepIds.data, out.data, end.bits);

  if (size === 8) {
    const src = alignedView(stepIds.data, Int32Array);
    const dst = new Int32Array(out.data.buffer, out.data.byteOffset, out.data.byteLength >>> 2);
    if (stops === null) backtrackPairs(ctx, src, dst);
    const endWords = new Int32Array(end.bits.buffer, end.bits.byteOffset, 2);
    if (dtype === 'float64') {
      const values = new Float64Array(out.data.buffer, out.data.byteOffset, dst.length >>> 1);
      maskFloat(ctx, values, dst, Number(end.value), endWords, 2);
    } else {
      maskPairs(ctx, dst, endWords[0] as number, endWords[1] as number);
    }
    return out;
  }
  const src = wordView(stepIds.data, size);
  const dst = wordView(out.data, size);
  const endWord = wordView(end.bits, size)[0] as number;
  if (dtype === 'float32') {
    if (stops === null) backtrack(ctx, src, dst);
    const values = new Float32Array(out.data.buffer, out.data.byteOffset, dst.length);
    maskFloat(ctx, values, dst as Int32Array, Number(end.value), new Int32Array([endWord]), 1);
  } else {
    // Plain arguments rather than ctx's fields: see backtrackStops.
    const ended = stops ?? backtrackStops(T, B, K, lengths, parents, src, dst, endWord, ctx);
    fillEnded(T, B, K, lengths, dst, endWord, ended);
  }
  return out;
}

interface Context {
  readonly T: number;
  readonly B: number;
  readonly K: number;
  /** Clamped max_seq_len per batch entry. */
  readonly lengths: Int32Array;
  /** Parent ids as int32; anything outside [0, K) reads as out of range through `>>> 0`. */
  readonly parents: Int32Array;
  readonly parentIds: Tensor;
  readonly stepIds: Tensor;
}

type Words = Int32Array | Uint16Array | Uint8Array;

function wordView(bytes: Uint8Array, size: number): Words {
  if (size === 4) return alignedView(bytes, Int32Array);
  if (size === 2) return alignedView(bytes, Uint16Array);
  return bytes;
}

/**
 * The backward pass, time-major: at each level every beam still inside its batch's length
 * copies the step id of the beam it currently traces and moves to that beam's parent. Walking
 * rows (not one beam at a time down the time axis) keeps the reads within a [BATCH, BEAM] row,
 * which is what makes this cache-friendly at large sizes.
 */
function backtrack(ctx: Context, src: Words, dst: Words): void {
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
function backtrackPairs(ctx: Context, src: Int32Array, dst: Int32Array): void {
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

/** Rows walked per batch entry before moving on; 4 measured best for [256, 256, 16]. */
const TILE = 4;

/**
 * `backtrack` for integer ids of up to 4 bytes (the fast path), which also notes where each beam
 * stops: one past its first end_token (the last one met walking backwards), else its length.
 * Knowing the stops lets the forward pass skip re-reading the output.
 *
 * Rows are taken TILE at a time per batch entry and four beams at a time, with the traced
 * beams in locals: V8 re-checks every typed-array access, so fewer accesses and wider loop
 * bodies are what make this faster than the plain row loop of `backtrack` (docs/performance.md).
 */
function backtrackStops(
  T: number,
  B: number,
  K: number,
  lengths: Int32Array,
  parents: Int32Array,
  src: Words,
  dst: Words,
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
function fillRow(dst: Words, base: number, K: number, end: number): void {
  if (K < 64) for (let k = 0; k < K; k++) dst[base + k] = end;
  else dst.fill(end, base, base + K);
}

/**
 * end_token from each beam's stop up to its length (the rows past the length are already filled);
 * a batch's rows before its earliest stop are skipped.
 */
function fillEnded(
  T: number,
  B: number,
  K: number,
  lengths: Int32Array,
  dst: Words,
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
function maskPairs(ctx: Context, dst: Int32Array, endLo: number, endHi: number): void {
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
function maskFloat(
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

function checkIndexDtype(dtype: Dtype, name: string): void {
  if (!isIntegerDtype(dtype) && dtype !== 'float32' && dtype !== 'float64') {
    throw new TensorOpsError(
      'E_DTYPE',
      `${OP}: ${name} must have an integer dtype or integral float32/float64 values, got ${dtype}`,
    );
  }
}

/** max_seq_len clamped to [0, MAX_TIME]; 64-bit values are compared whole, never wrapped. */
function clampLengths(maxSeqLen: Tensor, T: number): Int32Array {
  const B = maxSeqLen.shape[0] as number;
  const out = new Int32Array(B);
  const clamp = (v: number): number => Math.max(0, Math.min(v, T));
  const dtype = maxSeqLen.dtype;
  if (dtype === 'int64' || dtype === 'uint64') {
    const words = alignedView(maxSeqLen.data, Int32Array);
    for (let b = 0; b < B; b++) {
      const lo = (words[2 * b] as number) >>> 0;
      const hi = words[2 * b + 1] as number;
      if (dtype === 'int64' && hi < 0) out[b] = 0;
      else out[b] = hi !== 0 ? T : clamp(lo);
    }
    return out;
  }
  const values = valueView(maxSeqLen);
  for (let b = 0; b < B; b++) {
    const v = values[b] as number;
    if (!Number.isInteger(v)) {
      throw new TensorOpsError(
        'E_VALUE',
        `${OP}: max_seq_len value ${show(v)} at max_seq_len[${b}] is not an integer`,
      );
    }
    out[b] = clamp(v);
  }
  return out;
}

/**
 * Parent ids as an Int32Array the kernel can index directly. int32 and uint32 are viewed in
 * place (a uint32 >= 2^31 reads negative, which `p >>> 0 >= K` still rejects); other dtypes are
 * converted once, with -1 standing for every value outside [0, K) so that only a parent the
 * kernel actually follows raises the error.
 */
function parentView(parentIds: Tensor, K: number): Int32Array {
  const dtype = parentIds.dtype;
  if (dtype === 'int32' || dtype === 'uint32') return alignedView(parentIds.data, Int32Array);
  const n = parentIds.data.byteLength / dtypeSize(dtype);
  const out = new Int32Array(n);
  if (dtype === 'int64' || dtype === 'uint64') {
    const words = alignedView(parentIds.data, Int32Array);
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i] as number;
      out[i] = words[2 * i + 1] === 0 && lo >>> 0 < K ? lo : -1;
    }
    return out;
  }
  const values = valueView(parentIds);
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    // `v >= 0 && v < K` is false for NaN; `v | 0` maps -0 to 0.
    out[i] = v >= 0 && v < K && Number.isInteger(v) ? v | 0 : -1;
  }
  return out;
}

/** The error for the parent at parent_ids[t, b, s], met while tracing beam k of batch b. */
function parentError(ctx: Context, t: number, b: number, s: number, k: number): TensorOpsError {
  const { B, K, parentIds } = ctx;
  const flat = (t * B + b) * K + s;
  const v = elementAt(parentIds, flat);
  const where = `parent_ids${formatPosition(flat, parentIds.shape)} (tracing beam ${k} of batch ${b})`;
  if (typeof v === 'number' && !Number.isInteger(v)) {
    return new TensorOpsError(
      'E_VALUE',
      `${OP}: parent_ids value ${show(v)} at ${where} is not an integer`,
    );
  }
  return new TensorOpsError(
    'E_INDEX_RANGE',
    `${OP}: parent ${show(v)} out of range [0, ${K - 1}] at ${where}`,
  );
}

/** The error for a non-integral float step id that would reach the output at [t, b, k]. */
function stepError(ctx: Context, t: number, b: number, k: number, v: number): TensorOpsError {
  const { B, K, lengths, parents, stepIds } = ctx;
  // Re-trace the beam (its parents are already validated) to name the element actually read.
  let s = k;
  for (let level = (lengths[b] as number) - 1; level > t; level--) {
    s = parents[(level * B + b) * K + s] as number;
  }
  const flat = (t * B + b) * K + s;
  return new TensorOpsError(
    'E_VALUE',
    `${OP}: step_ids value ${show(v)} at step_ids${formatPosition(flat, stepIds.shape)} is not an integer (float step ids must hold integral values)`,
  );
}

function elementAt(t: Tensor, flat: number): number | bigint {
  const size = dtypeSize(t.dtype);
  const one = createTensor(t.dtype, [], t.data.slice(flat * size, (flat + 1) * size));
  return tensorValues(one)[0] as number | bigint;
}
