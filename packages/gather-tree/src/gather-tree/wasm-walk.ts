// GatherTree's backward walk through the WebAssembly `tree` kernel (fixed-width SIMD;
// wasm/tree.wat), for beams of at most 16 and step ids of 1, 2, 4 or 8
// bytes. The kernel holds a batch entry's traced beams in one vector and moves a whole beam row
// with a few byte shuffles, where the JavaScript walk pays a bounds-checked load, store and
// parent load per element.
//
// Wasm code only sees its own memory, so the walk goes down the time axis a block of rows at a
// time: copy the block's step ids and parents in (TypedArray.set, a memmove), run the kernel,
// copy the block's output out. Blocks are small enough to stay in cache between the copies.
import { treeKernels } from '../wasm/runtime.js';
import type { WalkInput } from './context.js';

/** The widest beam the kernel takes: its traced beams are the 16 bytes of one vector. */
export const WASM_MAX_BEAMS = 16;

/**
 * Bytes of step ids + parents + output staged per kernel call, small enough for the block to
 * stay in cache between its copies, large enough that a call's fixed cost is small.
 */
export const WALK_BLOCK_BYTES = 384 * 1024;

/** The kernel's vector loads read up to 16 items (at most 128 bytes) past a block's last beam. */
const SLACK = 128;

/**
 * The backward walk into `dst`: every element is its traced step id, or end_token (the bits
 * `endBits`) where t >= its batch's length. Returns the stops that the forward pass needs (one
 * past each beam's first end_token, else its length; [B * K]), or null when the walk was not
 * done here: WebAssembly unavailable, K > 16, staging over its cap, or a followed parent out of
 * range (`dst` is then partly written, and the caller's JavaScript walk finds and reports it).
 */
export function backtrackWasm(
  input: WalkInput,
  itemBytes: number,
  src: Uint8Array,
  dst: Uint8Array,
  endBits: Uint8Array,
  blockBytes = WALK_BLOCK_BYTES,
): Int32Array | null {
  const { T, B, K, lengths, parents } = input;
  const kernels = treeKernels(dst.byteLength);
  const tree = kernels?.tree[itemBytes];
  if (kernels == null || tree === undefined || K > WASM_MAX_BEAMS || T * B * K === 0) return null;
  const rowBytes = B * K * itemBytes;
  const parentRowBytes = B * K * 4;
  const rows = Math.min(T, Math.max(1, Math.floor(blockBytes / (2 * rowBytes + parentRowBytes))));
  // Per batch entry: its length (int32), traced beams (16 bytes) and stops (16 int32).
  const stateAt = 0;
  const traceAt = stateAt + 4 * B;
  const stopsAt = traceAt + 16 * B;
  const srcAt = stopsAt + 64 * B;
  const parAt = srcAt + rows * rowBytes + SLACK;
  const outAt = parAt + rows * parentRowBytes + SLACK;
  const mem = kernels.staging(outAt + rows * rowBytes);
  if (mem === null) return null;

  const words = new Int32Array(mem.buffer, 0, srcAt >>> 2);
  words.set(lengths, stateAt >>> 2);
  for (let b = 0; b < B; b++) {
    const len = lengths[b] as number;
    for (let k = 0; k < 16; k++) {
      // Lanes past K trace beam 0: they read real bytes and are never stored.
      mem[traceAt + 16 * b + k] = k < K ? k : 0;
      words[(stopsAt >>> 2) + 16 * b + k] = len;
    }
  }
  const parentBytes = new Uint8Array(parents.buffer, parents.byteOffset, parents.byteLength);
  const end = endValue(endBits, itemBytes);
  for (let top = T; top > 0; top -= rows) {
    const t0 = Math.max(0, top - rows);
    mem.set(src.subarray(t0 * rowBytes, top * rowBytes), srcAt);
    mem.set(parentBytes.subarray(t0 * parentRowBytes, top * parentRowBytes), parAt);
    if (tree(srcAt, parAt, outAt, t0, top, B, K, stateAt, traceAt, stopsAt, end) !== 0) {
      return null;
    }
    dst.set(mem.subarray(outAt, outAt + (top - t0) * rowBytes), t0 * rowBytes);
  }
  const stops = new Int32Array(B * K);
  for (let b = 0; b < B; b++) {
    for (let k = 0; k < K; k++) stops[b * K + k] = words[(stopsAt >>> 2) + 16 * b + k] as number;
  }
  return stops;
}

/** end_token's bits as the unsigned integer the kernel compares items with. */
function endValue(bits: Uint8Array, itemBytes: number): bigint {
  let v = 0n;
  for (let i = itemBytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(bits[i] as number);
  return v;
}
