// Block copies shared by the kernels. Elements move as same-width integers or bytes, never as JS
// floats: reading a Float32Array/Float64Array element into a number may quiet a signalling NaN.

/** Blocks at least this long go through TypedArray.set (memmove); shorter ones through a word loop. */
export const LONG_BLOCK_BYTES = 256;

export type WordView = Int32Array | Uint16Array | Uint8Array;

/** Widest word (4, 2 or 1 bytes) that divides the block and both buffers' offsets. */
export function wordWidth(blockBytes: number, ...buffers: Uint8Array[]): 4 | 2 | 1 {
  let aligned = blockBytes;
  for (const b of buffers) aligned |= b.byteOffset;
  return aligned % 4 === 0 ? 4 : aligned % 2 === 0 ? 2 : 1;
}

export function wordView(bytes: Uint8Array, width: 4 | 2 | 1): WordView {
  if (width === 4) return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  if (width === 2) return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 1);
  return bytes;
}

// Touch passes. A gather from memory that is not in cache waits on one miss after another: the
// copy loop for one block is too long for the CPU's out-of-order window to reach the next
// block's loads. A loop that only loads one byte per cache line is short enough to keep many
// misses (and TLB walks) in flight at once, so running it first over what the copy loop is about
// to read makes the copy hit the cache. Measured on the bench (docs/performance.md): 2-3x on
// random 16 B-1 KiB blocks from a 256 MiB source and on 4-byte gathers within rows of 16 KiB-4 MiB.

/** Bytes between the loads of a touch pass: the cache line of x86-64 and most ARM cores. */
export const CACHE_LINE_BYTES = 64;

// biome-ignore lint/correctness/noUnusedVariables: written only: the touch loads fold into it so that the compiler cannot drop them as dead code
let touchSink = 0;

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
