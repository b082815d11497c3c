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
