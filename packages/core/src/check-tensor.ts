import { type Dtype, dtypeSize, parseDtype } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { checkShape, formatShape, type Shape, shapeSize } from './shape.js';
import type { Tensor } from './tensor.js';

/**
 * Checks at run time what the types promise, for callers the types do not reach (plain
 * JavaScript, data from JSON): `dtype` a known dtype name (E_DTYPE), `shape` an array of
 * non-negative safe integers (E_SHAPE). `what` starts the message, e.g. `Gather: data`.
 * docs/design.md §2.2.
 */
export function checkTensorLayout(t: Pick<Tensor, 'dtype' | 'shape'>, what: string): void {
  if (typeof t !== 'object' || t === null) {
    throw new TensorOpsError('E_DTYPE', `${what} must be a tensor {dtype, shape, data}, got ${t}`);
  }
  const { dtype, shape } = t as { dtype: unknown; shape: unknown };
  if (typeof dtype !== 'string') {
    throw new TensorOpsError('E_DTYPE', `${what} has no dtype name, got ${describeValue(dtype)}`);
  }
  if (!Array.isArray(shape)) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${what} shape must be an array, got ${describeValue(shape)}`,
    );
  }
  parseDtype(dtype);
  checkShape(shape, `${what} shape`);
}

/**
 * checkTensorLayout, and `data` a Uint8Array of exactly shape size x item size bytes. Another
 * typed array is refused (E_DTYPE), not reinterpreted: a Float32Array of values and one holding
 * bytes cannot be told apart, and copying values into bytes truncates them.
 */
export function checkTensor(t: Tensor, what: string): void {
  checkTensorLayout(t, what);
  checkData(t.dtype, t.shape, (t as { data: unknown }).data, what);
}

/** The data check of checkTensor, for bytes handed in beside a dtype and a shape. */
export function checkData(dtype: Dtype, shape: Shape, data: unknown, what: string): void {
  if (!(data instanceof Uint8Array)) {
    throw new TensorOpsError(
      'E_DTYPE',
      `${what} data must be a Uint8Array of little-endian bytes, got ${describeValue(data)} (view a typed array's bytes with new Uint8Array(a.buffer, a.byteOffset, a.byteLength))`,
    );
  }
  const nbytes = shapeSize(shape) * dtypeSize(dtype);
  if (data.byteLength !== nbytes) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${what} of dtype ${dtype} and shape ${formatShape(shape)} needs ${nbytes} bytes, got ${data.byteLength}`,
    );
  }
}

/** What `value` is, for a message that refuses it: `string`, `null`, `Float32Array`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return (value as object).constructor?.name ?? 'an object';
}
