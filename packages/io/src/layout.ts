// Byte-level layout conversions for readers of foreign files: byte order and Fortran order.
// Elements move as bytes or same-width unsigned integers, never through JS floats, so NaN
// payloads and every other bit pattern survive.
import { type Dtype, dtypeSize, isStringDtype } from '@tensorops/core';
import { copyElement, wordView, wordWidth } from '@tensorops/core/internal';

/** Bytes per byte-swapped word: complex swaps each half, U each UTF-32 code unit, S nothing. */
export function byteSwapUnit(dtype: Dtype): number {
  if (isStringDtype(dtype)) return dtype[0] === 'U' ? 4 : 1;
  if (dtype === 'complex64' || dtype === 'complex128') return dtypeSize(dtype) / 2;
  return dtypeSize(dtype);
}

/** Reverses the bytes of every `unit`-byte word of `bytes`, in place. */
export function swapBytesInPlace(bytes: Uint8Array, unit: number): void {
  if (unit <= 1) return;
  const n = bytes.length - (bytes.length % unit);
  if (unit === 2) {
    for (let i = 0; i < n; i += 2) {
      const a = bytes[i] as number;
      bytes[i] = bytes[i + 1] as number;
      bytes[i + 1] = a;
    }
    return;
  }
  for (let i = 0; i < n; i += unit) {
    for (let lo = i, hi = i + unit - 1; lo < hi; lo++, hi--) {
      const a = bytes[lo] as number;
      bytes[lo] = bytes[hi] as number;
      bytes[hi] = a;
    }
  }
}

/**
 * Fortran-order (column-major) elements of `shape` -> a new C-order buffer.
 * `src` holds exactly shapeSize(shape) * itemSize bytes.
 */
export function fortranToC(
  src: Uint8Array,
  shape: readonly number[],
  itemSize: number,
): Uint8Array {
  const out = new Uint8Array(src.byteLength);
  const rank = shape.length;
  if (src.byteLength === 0 || rank < 2) {
    out.set(src);
    return out;
  }
  // Widest word that divides the item and the source offset (out is freshly allocated, offset 0).
  const width = wordWidth(itemSize, src);
  const from = wordView(src, width);
  const to = wordView(out, width);
  const unitsPerItem = itemSize / width;
  // Source strides in words: in Fortran order the first axis is the contiguous one.
  const strides = new Array<number>(rank);
  let s = unitsPerItem;
  for (let k = 0; k < rank; k++) {
    strides[k] = s;
    s *= shape[k] as number;
  }
  const last = shape[rank - 1] as number;
  const lastStride = strides[rank - 1] as number;
  const outer = src.byteLength / itemSize / last;
  const index = new Array<number>(rank - 1).fill(0);
  let base = 0;
  let dst = 0;
  for (let o = 0; o < outer; o++) {
    let at = base;
    if (unitsPerItem === 1) {
      for (let j = 0; j < last; j++, at += lastStride) to[dst++] = from[at] as number;
    } else {
      for (let j = 0; j < last; j++, at += lastStride, dst += unitsPerItem) {
        copyElement(from, at, to, dst, unitsPerItem);
      }
    }
    for (let k = rank - 2; k >= 0; k--) {
      const stride = strides[k] as number;
      base += stride;
      const next = (index[k] as number) + 1;
      if (next < (shape[k] as number)) {
        index[k] = next;
        break;
      }
      index[k] = 0;
      base -= stride * (shape[k] as number);
    }
  }
  return out;
}
