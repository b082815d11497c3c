import { dtypeSize } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { formatPosition } from './shape.js';
import type { Tensor } from './tensor.js';

/** What an out-of-range index does: fail (the default) or yield zeros (OpenVINO Gather-8, TF on GPU). */
export type OobMode = 'error' | 'zero';

/** Marks an out-of-range index under `oob: 'zero'` in decoded positions. */
export const ZERO_FILL = -1;

export interface IndexContext {
  /** ONNX op name for messages, e.g. `Gather`. */
  readonly op: string;
  readonly oob: OobMode;
  /** Message suffix, e.g. `(axis=1)`; `dim` is the element's place within the period of `bounds`. */
  readonly where?: (dim: number) => string;
}

const TWO_32 = 4294967296;

/**
 * Decodes an integer index tensor into non-negative positions, validating every value.
 * `bounds[i % bounds.length]` is the size indexed by element i, so GatherND passes one bound per
 * coordinate. Values are compared as 64-bit integers: int64 is read as Int32 pairs (never through
 * BigInt per element) so 2^32+1 cannot alias 1 and values beyond the range are errors, not wraps.
 */
export function decodeIndices(
  indices: Tensor,
  bounds: readonly number[],
  ctx: IndexContext,
): Int32Array | Float64Array {
  const n = indices.data.byteLength / dtypeSize(indices.dtype);
  const float64 = bounds.some((b) => b > 0x7fffffff);
  const out = float64 ? new Float64Array(n) : new Int32Array(n);
  const period = bounds.length;
  const single = bounds[0] as number;
  const fail = (i: number): void => {
    if (ctx.oob === 'zero') {
      out[i] = ZERO_FILL;
      return;
    }
    const bound = bounds[i % period] as number;
    throw new TensorOpsError(
      'E_INDEX_RANGE',
      `${ctx.op}: index ${indexValueAt(indices, i)} out of range [${-bound}, ${bound - 1}] at indices${formatPosition(i, indices.shape)}${ctx.where ? ` ${ctx.where(i % period)}` : ''}`,
    );
  };
  const place = (i: number, v: number): void => {
    const bound = period === 1 ? single : (bounds[i % period] as number);
    const p = v < 0 ? v + bound : v;
    if (p >= 0 && p < bound) out[i] = p;
    else fail(i);
  };

  switch (indices.dtype) {
    case 'int8':
    case 'uint8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32': {
      const src = valueView(indices);
      if (period === 1 && out instanceof Int32Array) {
        decodeNarrowSingle(src, single, out, place);
        return out;
      }
      for (let i = 0; i < n; i++) place(i, src[i] as number);
      return out;
    }
    case 'int64': {
      const words = alignedView(indices.data, Int32Array);
      if (period === 1 && out instanceof Int32Array) {
        decodeInt64Single(words, single, out, place);
        return out;
      }
      for (let i = 0; i < n; i++) {
        const lo = (words[2 * i] as number) >>> 0;
        const hi = words[2 * i + 1] as number;
        // hi 0 / -1: the value fits in 33 signed bits and is exact; else |v| >= 2^32.
        place(i, hi === 0 ? lo : hi === -1 ? lo - TWO_32 : hi * TWO_32 + lo);
      }
      return out;
    }
    case 'uint64': {
      const words = alignedView(indices.data, Uint32Array);
      for (let i = 0; i < n; i++) {
        const lo = words[2 * i] as number;
        const hi = words[2 * i + 1] as number;
        place(i, hi * TWO_32 + lo);
      }
      return out;
    }
    default:
      throw new TensorOpsError(
        'E_DTYPE',
        `${ctx.op}: indices must have an integer dtype, got ${indices.dtype}`,
      );
  }
}

/**
 * The common case of decodeIndices (one bound, Int32 positions), without a closure call per
 * element: the closures' extra call and bound lookup cost ~10% of a 16M-index decode. Anything
 * not plainly in range goes to `place`, which fills ZERO_FILL or throws the usual error, so the
 * first offending index in C order is still the one reported.
 */
function decodeInt64Single(
  words: Int32Array,
  bound: number,
  out: Int32Array,
  place: (i: number, v: number) => void,
): void {
  const n = out.length;
  for (let i = 0; i < n; i++) {
    const lo = words[2 * i] as number;
    const hi = words[2 * i + 1] as number;
    // hi === lo >> 31: the value is the int32 lo (sign-extended), so it needs no float math.
    if (hi === lo >> 31) {
      const p = lo < 0 ? lo + bound : lo;
      if (p >= 0 && p < bound) {
        out[i] = p;
        continue;
      }
    }
    place(i, hi === 0 ? lo >>> 0 : hi === -1 ? (lo >>> 0) - TWO_32 : hi * TWO_32 + (lo >>> 0));
  }
}

function decodeNarrowSingle(
  src: ValueView,
  bound: number,
  out: Int32Array,
  place: (i: number, v: number) => void,
): void {
  const n = out.length;
  for (let i = 0; i < n; i++) {
    const v = src[i] as number;
    const p = v < 0 ? v + bound : v;
    if (p >= 0 && p < bound) out[i] = p;
    else place(i, v);
  }
}

/** The typed array valueView gives for each dtype whose values fit a JS number. */
export interface ValueViews {
  int8: Int8Array;
  uint8: Uint8Array;
  int16: Int16Array;
  uint16: Uint16Array;
  int32: Int32Array;
  uint32: Uint32Array;
  float32: Float32Array;
  float64: Float64Array;
}

export type ValueViewDtype = keyof ValueViews;

/** A typed-array view of a tensor's values, for the dtypes whose values fit a JS number. */
export type ValueView = ValueViews[ValueViewDtype];

/**
 * The values of an 8/16/32-bit integer, float32 or float64 tensor (copied first when unaligned),
 * typed by the tensor's dtype: a `Tensor<'float32'>` gives a Float32Array. Other dtypes: E_DTYPE.
 * For reading values only: copying elements through a float view could quiet a signalling NaN.
 */
export function valueView<D extends ValueViewDtype>(t: Tensor<D>): ValueViews[D];
export function valueView(t: Tensor): ValueView;
export function valueView(t: Tensor): ValueView {
  switch (t.dtype) {
    case 'int8':
      return new Int8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    case 'uint8':
      return t.data;
    case 'int16':
      return alignedView(t.data, Int16Array);
    case 'uint16':
      return alignedView(t.data, Uint16Array);
    case 'int32':
      return alignedView(t.data, Int32Array);
    case 'uint32':
      return alignedView(t.data, Uint32Array);
    case 'float32':
      return alignedView(t.data, Float32Array);
    case 'float64':
      return alignedView(t.data, Float64Array);
    default:
      throw new TensorOpsError('E_DTYPE', `no number view for dtype ${t.dtype}`);
  }
}

type ViewCtor<T> = {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  BYTES_PER_ELEMENT: number;
};

/** A typed-array view of `bytes`, copying first when the bytes are not aligned for it. */
export function alignedView<T>(bytes: Uint8Array, Ctor: ViewCtor<T>): T {
  const width = Ctor.BYTES_PER_ELEMENT;
  const source = bytes.byteOffset % width === 0 ? bytes : bytes.slice();
  return new Ctor(source.buffer, source.byteOffset, source.byteLength / width);
}

/** The exact value of index element i, for messages only. */
export function indexValueAt(indices: Tensor, i: number): string {
  const size = dtypeSize(indices.dtype);
  const view = new DataView(indices.data.buffer, indices.data.byteOffset + i * size, size);
  switch (indices.dtype) {
    case 'int8':
      return String(view.getInt8(0));
    case 'uint8':
      return String(view.getUint8(0));
    case 'int16':
      return String(view.getInt16(0, true));
    case 'uint16':
      return String(view.getUint16(0, true));
    case 'int32':
      return String(view.getInt32(0, true));
    case 'uint32':
      return String(view.getUint32(0, true));
    case 'int64':
      return String(view.getBigInt64(0, true));
    default:
      return String(view.getBigUint64(0, true));
  }
}
