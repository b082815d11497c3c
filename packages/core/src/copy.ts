// Block copies shared by the kernels. Elements move as same-width integers or bytes, never as JS
// floats: reading a Float32Array/Float64Array element into a number may quiet a signalling NaN.
// A helper two kernels need lives here once: the word views and the element copy loop are shared
// with @tensorops/io and @tensorops/gather-tree through @tensorops/core/internal, and the touch
// passes keep their row threshold beside touchRange.
import { ZERO_FILL } from './indices.js';

/** Blocks at least this long go through TypedArray.set (memmove); shorter ones through a word loop. */
export const LONG_BLOCK_BYTES = 256;

export type WordView = Int32Array | Uint16Array | Uint8Array;

/** Widest word (4, 2 or 1 bytes) that divides the block and both buffers' offsets. */
export function wordWidth(blockBytes: number, ...buffers: Uint8Array[]): 4 | 2 | 1 {
  let aligned = blockBytes;
  for (const b of buffers) aligned |= b.byteOffset;
  return aligned % 4 === 0 ? 4 : aligned % 2 === 0 ? 2 : 1;
}

/** `bytes` as words of `width` bytes, in place; its offset and length must be multiples of width. */
export function wordView(bytes: Uint8Array, width: 4 | 2 | 1): WordView {
  if (width === 4) return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  if (width === 2) return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 1);
  return bytes;
}

/**
 * dst[to, to + words) = src[from, from + words): one element (or block) of `words` words, the
 * copy loop of every multi-word gather. Four loads go before their four stores when `words` is a
 * multiple of 4 (as copyWords1 does with eight).
 */
export function copyElement(
  src: WordView,
  from: number,
  dst: WordView,
  to: number,
  words: number,
): void {
  if (words % 4 !== 0) {
    for (let k = 0; k < words; k++) dst[to + k] = src[from + k] as number;
    return;
  }
  for (let s = from, e = to, end = to + words; e < end; e += 4, s += 4) {
    const w0 = src[s] as number;
    const w1 = src[s + 1] as number;
    const w2 = src[s + 2] as number;
    const w3 = src[s + 3] as number;
    dst[e] = w0;
    dst[e + 1] = w1;
    dst[e + 2] = w2;
    dst[e + 3] = w3;
  }
}

/**
 * One-word blocks: dst[d + j - from] = src[base + positions[j] * stride] for j in [from, to),
 * skipping ZERO_FILL positions; returns the next d. The hot loop of gathers along the last axis
 * (Gather with stride 1, GatherElements' planned path with the axis stride). Eight loads are
 * issued before their stores so that eight cache misses overlap.
 * `(p0 | ... | p7) >= 0` proves that none is ZERO_FILL (-1 makes any int32 OR negative); it may
 * also send in-range positions >= 2^31 (Float64Array plans) to the checked loop, which is fine.
 */
export function copyWords1(
  positions: Int32Array | Float64Array,
  from: number,
  to: number,
  base: number,
  stride: number,
  src: WordView,
  dst: WordView,
  d: number,
): number {
  let j = from;
  for (; j + 8 <= to; j += 8) {
    const p0 = positions[j] as number;
    const p1 = positions[j + 1] as number;
    const p2 = positions[j + 2] as number;
    const p3 = positions[j + 3] as number;
    const p4 = positions[j + 4] as number;
    const p5 = positions[j + 5] as number;
    const p6 = positions[j + 6] as number;
    const p7 = positions[j + 7] as number;
    if ((p0 | p1 | p2 | p3 | p4 | p5 | p6 | p7) < 0) {
      for (let k = j; k < j + 8; k++) {
        const p = positions[k] as number;
        if (p !== ZERO_FILL) dst[d] = src[base + p * stride] as number;
        d++;
      }
      continue;
    }
    const w0 = src[base + p0 * stride] as number;
    const w1 = src[base + p1 * stride] as number;
    const w2 = src[base + p2 * stride] as number;
    const w3 = src[base + p3 * stride] as number;
    const w4 = src[base + p4 * stride] as number;
    const w5 = src[base + p5 * stride] as number;
    const w6 = src[base + p6 * stride] as number;
    const w7 = src[base + p7 * stride] as number;
    dst[d] = w0;
    dst[d + 1] = w1;
    dst[d + 2] = w2;
    dst[d + 3] = w3;
    dst[d + 4] = w4;
    dst[d + 5] = w5;
    dst[d + 6] = w6;
    dst[d + 7] = w7;
    d += 8;
  }
  for (; j < to; j++) {
    const p = positions[j] as number;
    if (p !== ZERO_FILL) dst[d] = src[base + p * stride] as number;
    d++;
  }
  return d;
}

// Touch passes. A gather from memory that is not in cache waits on one miss after another: the
// copy loop for one block is too long for the CPU's out-of-order window to reach the next
// block's loads. A loop that only loads one byte per cache line is short enough to keep many
// misses (and TLB walks) in flight at once, so running it first over what the copy loop is about
// to read makes the copy hit the cache: random short blocks from a large source, and 4-byte
// gathers within rows of 16 KiB-4 MiB.

/** Bytes between the loads of a touch pass: the cache line of x86-64 and most ARM cores. */
export const CACHE_LINE_BYTES = 64;

// biome-ignore lint/correctness/noUnusedVariables: written only: the touch loads fold into it so that the compiler cannot drop them as dead code
let touchSink = 0;

/**
 * Rows up to this size are read whole (touchRange) before a dense gather from them: they fit in a
 * core's share of L2+L3.
 */
export const TOUCH_ROW_MAX_BYTES = 4 * 1024 * 1024;

/** Loads one byte of every cache line of bytes[start, end). */
export function touchRange(bytes: Uint8Array, start: number, end: number): void {
  if (end <= start) return;
  let acc = bytes[end - 1] as number;
  for (let i = start; i < end; i += CACHE_LINE_BYTES) acc ^= bytes[i] as number;
  touchSink ^= acc;
}

/**
 * Loads one byte of every cache line of the blocks (base + positions[j]) * blockBytes, for j in
 * [from, to), skipping `skip` (ZERO_FILL) entries.
 */
export function touchBlocks(
  bytes: Uint8Array,
  positions: Int32Array | Float64Array,
  from: number,
  to: number,
  base: number,
  blockBytes: number,
  skip: number,
): void {
  let acc = 0;
  if (blockBytes <= CACHE_LINE_BYTES) {
    // one line, or two when the block straddles a line boundary: its first and last byte
    for (let j = from; j < to; j++) {
      const p = positions[j] as number;
      if (p === skip) continue;
      const s = (base + p) * blockBytes;
      acc ^= (bytes[s] as number) ^ (bytes[s + blockBytes - 1] as number);
    }
  } else {
    for (let j = from; j < to; j++) {
      const p = positions[j] as number;
      if (p === skip) continue;
      const s = (base + p) * blockBytes;
      const e = s + blockBytes;
      acc ^= bytes[e - 1] as number;
      for (let i = s; i < e; i += CACHE_LINE_BYTES) acc ^= bytes[i] as number;
    }
  }
  touchSink ^= acc;
}

/** Blocks per touch-then-copy group: about 8 KiB, so a group's lines stay in L1 until copied. */
export function touchGroupSize(blockBytes: number): number {
  return Math.max(8, Math.min(64, Math.floor(8192 / blockBytes)));
}
