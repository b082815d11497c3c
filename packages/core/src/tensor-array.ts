// The values of a tensor as one typed array, the way numpy's `arr.ravel()` hands them out: the
// array type follows the dtype, so values read back without a copy where the bytes allow it.
import { checkTensor } from './check-tensor.js';
import { type Dtype, isStringDtype } from './dtype.js';
import { TensorOpsError } from './errors.js';
import {
  bfloat16ToNumber,
  type Float8Dtype,
  float8ToNumber,
  float16ToNumber,
  isFloat8Dtype,
} from './float-bits.js';
import { alignedView, type ValueViews, valueView } from './indices.js';
import { shapeSize } from './shape.js';
import type { Tensor } from './tensor.js';

/** The typed array tensorArray gives for each dtype. */
export interface TensorArrays extends ValueViews {
  bool: Uint8Array;
  int64: BigInt64Array;
  uint64: BigUint64Array;
  float16: Float32Array;
  bfloat16: Float32Array;
  complex64: Float32Array;
  complex128: Float64Array;
  float8_e4m3fn: Float32Array;
  float8_e4m3fnuz: Float32Array;
  float8_e5m2: Float32Array;
  float8_e5m2fnuz: Float32Array;
  float8_e8m0fnu: Float32Array;
}

export type TensorArrayDtype = keyof TensorArrays;

/** Any array tensorArray gives. */
export type TensorArray = TensorArrays[TensorArrayDtype];

/**
 * The tensor's values, in C order, as a typed array of its dtype: Int8Array ... Float64Array for
 * the 8/16/32-bit integers and float32/float64, BigInt64Array / BigUint64Array for int64 /
 * uint64 (every value exact), a Uint8Array of 0 and 1 for bool, and for complex64 / complex128 a
 * Float32Array / Float64Array of interleaved real and imaginary parts (twice the element count).
 * These share the tensor's bytes when they are aligned for the array type, and are a copy
 * otherwise: read them, do not write through them.
 * float16, bfloat16 and float8 give a new Float32Array of their values, which float32 holds
 * exactly (their NaN codes become NaN, without the payload). String dtypes: E_DTYPE.
 */
export function tensorArray<D extends TensorArrayDtype>(t: Tensor<D>): TensorArrays[D];
export function tensorArray(t: Tensor): TensorArray;
export function tensorArray(t: Tensor): TensorArray {
  checkTensor(t, 'tensorArray:');
  const dtype: Dtype = t.dtype;
  switch (dtype) {
    case 'bool':
      return t.data;
    case 'int64':
      return alignedView(t.data, BigInt64Array);
    case 'uint64':
      return alignedView(t.data, BigUint64Array);
    case 'complex64':
      return alignedView(t.data, Float32Array);
    case 'complex128':
      return alignedView(t.data, Float64Array);
    case 'float16':
      return decoded(t, 2, (v, o) => float16ToNumber(v.getUint16(o, true)));
    case 'bfloat16':
      return decoded(t, 2, (v, o) => bfloat16ToNumber(v.getUint16(o, true)));
    default:
      if (isFloat8Dtype(dtype)) {
        const f8: Float8Dtype = dtype;
        return decoded(t, 1, (v, o) => float8ToNumber(f8, v.getUint8(o)));
      }
      if (isStringDtype(dtype)) {
        throw new TensorOpsError(
          'E_DTYPE',
          `tensorArray does not read string dtype ${dtype}; read its bytes from data`,
        );
      }
      return valueView(t);
  }
}

/** The values of a narrow float dtype, decoded one by one into a new Float32Array. */
function decoded(
  t: Tensor,
  size: number,
  read: (view: DataView, offset: number) => number,
): Float32Array {
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const out = new Float32Array(shapeSize(t.shape));
  for (let i = 0; i < out.length; i++) out[i] = read(view, i * size);
  return out;
}
