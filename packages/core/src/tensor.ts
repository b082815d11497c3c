import { checkData, checkTensor, checkTensorLayout, describeValue } from './check-tensor.js';
import { type Dtype, dtypeSize, integerRange, isIntegerDtype } from './dtype.js';
import { TensorOpsError } from './errors.js';
import {
  bfloat16ToNumber,
  float8ToNumber,
  float16ToNumber,
  isFloat8Dtype,
  numberToBfloat16,
  numberToFloat16,
} from './float-bits.js';
import type { OobMode } from './indices.js';
import {
  checkShape,
  formatPosition,
  formatShape,
  type Shape,
  shapeSize,
  shapesEqual,
} from './shape.js';

/**
 * A tensor: dtype, shape and its elements as little-endian, C-order bytes.
 * Holding bytes (not a typed array of values) is what keeps every op bit-exact for every dtype.
 */
export interface Tensor<D extends Dtype = Dtype> {
  readonly dtype: D;
  readonly shape: Shape;
  readonly data: Uint8Array;
}

/**
 * Wraps bytes as a tensor after checking that their length is shape x item size.
 * Without `data`, allocates zeroed storage.
 */
export function createTensor<D extends Dtype>(
  dtype: D,
  shape: Shape,
  data?: Uint8Array,
): Tensor<D> {
  if (!Array.isArray(shape)) checkTensorLayout({ dtype, shape }, 'tensor');
  checkShape(shape);
  if (data === undefined) return { dtype, shape: [...shape], data: zeroedBytes(dtype, shape) };
  checkData(dtype, shape, data, 'tensor');
  return { dtype, shape: [...shape], data };
}

/** The zeroed bytes of a tensor; one too large for any buffer is E_SHAPE, like a bad shape. */
function zeroedBytes(dtype: Dtype, shape: Shape): Uint8Array {
  try {
    return new Uint8Array(shapeSize(shape) * dtypeSize(dtype));
  } catch (cause) {
    if (!(cause instanceof RangeError)) throw cause;
    // Exact, where the number product may be past 2^53.
    let bytes = BigInt(dtypeSize(dtype));
    for (const d of shape) bytes *= BigInt(d);
    throw new TensorOpsError(
      'E_SHAPE',
      `tensor of dtype ${dtype} and shape ${formatShape(shape)} needs ${bytes} bytes, more than can be allocated`,
      { cause },
    );
  }
}

/** The `out` option of the ops. */
export interface OutputOption {
  /**
   * A tensor to write the output into instead of allocating one (the output's dtype and shape,
   * sharing no bytes with the inputs); it is returned. Reusing one across calls skips the page
   * faults of a fresh buffer. Its contents are unspecified if the call throws.
   */
  readonly out?: Tensor;
  /** Out-of-range indices: with 'zero' their elements are skipped by the copy, so out is zeroed. */
  readonly oob?: OobMode;
}

/**
 * The tensor an op writes into: `options.out`, checked to have the op's output dtype and shape
 * and to share no bytes with the inputs (the kernels read inputs while writing out), and zeroed
 * for oob 'zero'; else a new zeroed tensor.
 */
export function outputTensor(
  op: string,
  options: OutputOption,
  dtype: Dtype,
  shape: Shape,
  inputs: readonly Tensor[],
): Tensor {
  const out = options.out;
  if (out === undefined) return createTensor(dtype, shape);
  checkTensor(out, `${op}: out`);
  if (out.dtype !== dtype || !shapesEqual(out.shape, shape)) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${op}: out must be ${dtype} ${formatShape(shape)}, got ${out.dtype} ${formatShape(out.shape)}`,
    );
  }
  for (const input of inputs) {
    if (overlaps(out.data, input.data)) {
      throw new TensorOpsError('E_SHAPE', `${op}: out must not share bytes with an input`);
    }
  }
  if (options.oob === 'zero') out.data.fill(0);
  return out;
}

function overlaps(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.buffer === b.buffer &&
    a.byteLength > 0 &&
    b.byteLength > 0 &&
    a.byteOffset < b.byteOffset + b.byteLength &&
    b.byteOffset < a.byteOffset + a.byteLength
  );
}

/** Bytes of a tensor: shape x item size. */
export function tensorBytes(t: Pick<Tensor, 'dtype' | 'shape'>): number {
  return shapeSize(t.shape) * dtypeSize(t.dtype);
}

type Writer = (view: DataView, offset: number, value: number | bigint | boolean) => void;

const num = (v: number | bigint | boolean): number => Number(v);
const big = (v: number | bigint | boolean): bigint => (typeof v === 'bigint' ? v : BigInt(v));

const WRITERS: Partial<Record<Dtype, Writer>> = {
  bool: (v, o, x) => v.setUint8(o, x ? 1 : 0),
  int8: (v, o, x) => v.setInt8(o, num(x)),
  uint8: (v, o, x) => v.setUint8(o, num(x)),
  int16: (v, o, x) => v.setInt16(o, num(x), true),
  uint16: (v, o, x) => v.setUint16(o, num(x), true),
  int32: (v, o, x) => v.setInt32(o, num(x), true),
  uint32: (v, o, x) => v.setUint32(o, num(x), true),
  int64: (v, o, x) => v.setBigInt64(o, big(x), true),
  uint64: (v, o, x) => v.setBigUint64(o, big(x), true),
  float16: (v, o, x) => v.setUint16(o, numberToFloat16(num(x)), true),
  bfloat16: (v, o, x) => v.setUint16(o, numberToBfloat16(num(x)), true),
  float32: (v, o, x) => v.setFloat32(o, num(x), true),
  float64: (v, o, x) => v.setFloat64(o, num(x), true),
};

/**
 * Builds a tensor from plain values (a convenience for callers and tests; ops never use it).
 * Integers may be given as bigint; float16/bfloat16 values are rounded to nearest even.
 * Complex, float8 and string dtypes take raw bytes through `createTensor` instead.
 * A value the dtype cannot hold is a RangeError naming it and its position, never wrapped: an
 * integer dtype takes integers in its range (256 is no uint8, 1.5 and NaN no int32), bool takes
 * true, false, 0 and 1. Floats are rounded to the dtype, as numpy rounds them.
 */
export function tensorFrom<D extends Dtype>(
  dtype: D,
  shape: Shape,
  values: ArrayLike<number | bigint | boolean>,
): Tensor<D> {
  const write = WRITERS[dtype];
  if (write === undefined) {
    throw new TensorOpsError(
      'E_DTYPE',
      `tensorFrom does not take ${dtype} values; pass raw bytes to createTensor`,
    );
  }
  checkShape(shape);
  if (values.length !== shapeSize(shape)) {
    throw new TensorOpsError(
      'E_SHAPE',
      `shape ${formatShape(shape)} holds ${shapeSize(shape)} elements, got ${values.length} values`,
    );
  }
  const fits = valueCheck(dtype);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (!fits(value)) throw valueError(dtype, shape, value, i);
  }
  const t = createTensor(dtype, shape);
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const size = dtypeSize(dtype);
  for (let i = 0; i < values.length; i++) write(view, i * size, values[i] as number);
  return t;
}

const BOOL_VALUES: ReadonlySet<unknown> = new Set([false, true, 0, 1, 0n, 1n]);

/** Whether a value is one `dtype` holds as given (floats: one it rounds), for tensorFrom. */
function valueCheck(dtype: Dtype): (value: unknown) => boolean {
  const plain = (v: unknown) =>
    typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
  if (dtype === 'bool') return (v) => BOOL_VALUES.has(v);
  if (!isIntegerDtype(dtype)) return plain;
  const [min, max] = integerRange(dtype);
  // As numbers: min and max + 1 are powers of two (or 0), exact as doubles.
  const [low, end] = [Number(min), Number(max + 1n)];
  return (v) =>
    typeof v === 'number'
      ? Number.isInteger(v) && v >= low && v < end
      : typeof v === 'bigint'
        ? v >= min && v <= max
        : typeof v === 'boolean';
}

/** The error for a value tensorFrom refuses (see valueCheck): what it is, where, what fits. */
function valueError(dtype: Dtype, shape: Shape, value: unknown, index: number): Error {
  const at = `tensorFrom: values[${index}] (at ${formatPosition(index, shape)})`;
  if (typeof value !== 'number' && typeof value !== 'bigint' && typeof value !== 'boolean') {
    const kind = describeValue(value);
    const article = /^[aeiou]/i.test(kind) ? 'an' : 'a';
    const what = kind === 'undefined' || kind === 'null' ? kind : `${article} ${kind}`;
    return new TypeError(`${at} is ${what}, not a number, bigint or boolean`);
  }
  const holds = isIntegerDtype(dtype)
    ? `integers in [${integerRange(dtype).join(', ')}]`
    : 'true, false, 0 and 1';
  // 2 ** 63 prints as 9223372036854776000; its exact digits say why it does not fit.
  const shown = Number.isInteger(value) && !Number.isSafeInteger(value) ? BigInt(value) : value;
  return new RangeError(`${at} is ${shown}, which ${dtype} cannot hold (it holds ${holds})`);
}

type Reader = (view: DataView, offset: number) => number | bigint;

const READERS: Partial<Record<Dtype, Reader>> = {
  bool: (v, o) => v.getUint8(o),
  int8: (v, o) => v.getInt8(o),
  uint8: (v, o) => v.getUint8(o),
  int16: (v, o) => v.getInt16(o, true),
  uint16: (v, o) => v.getUint16(o, true),
  int32: (v, o) => v.getInt32(o, true),
  uint32: (v, o) => v.getUint32(o, true),
  int64: (v, o) => v.getBigInt64(o, true),
  uint64: (v, o) => v.getBigUint64(o, true),
  float16: (v, o) => float16ToNumber(v.getUint16(o, true)),
  bfloat16: (v, o) => bfloat16ToNumber(v.getUint16(o, true)),
  float32: (v, o) => v.getFloat32(o, true),
  float64: (v, o) => v.getFloat64(o, true),
};

function readerOf(dtype: Dtype): Reader | undefined {
  if (isFloat8Dtype(dtype)) return (v, o) => float8ToNumber(dtype, v.getUint8(o));
  return READERS[dtype];
}

/**
 * Element values as JS numbers (bigint for 64-bit integers), for display and tests. float16,
 * bfloat16 and float8 are decoded exactly (NaN for their NaN codes, so a payload is not kept);
 * complex and string dtypes: read their bytes from `data` instead.
 */
export function tensorValues(t: Tensor): Array<number | bigint> {
  checkTensor(t, 'tensorValues:');
  const read = readerOf(t.dtype);
  if (read === undefined) {
    throw new TensorOpsError('E_DTYPE', `tensorValues does not read ${t.dtype}; read its bytes`);
  }
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const size = dtypeSize(t.dtype);
  const n = shapeSize(t.shape);
  const out = new Array<number | bigint>(n);
  for (let i = 0; i < n; i++) out[i] = read(view, i * size);
  return out;
}
