// Slow, literal references for GatherElements and GatherND, for property tests. They share no
// code with the kernels: indices are read one by one as bigint through a DataView, every output
// multi-index is formed explicitly, and elements move one byte at a time.
import fc from 'fast-check';
import { type Dtype, dtypeSize, type IntegerDtype } from '../src/dtype.js';
import type { Shape } from '../src/shape.js';
import { createTensor, type Tensor } from '../src/tensor.js';

export type RefResult =
  | { readonly ok: true; readonly tensor: Tensor }
  | { readonly ok: false; readonly message: string };
export type RefOob = 'error' | 'zero';

function readIndex(indices: Tensor, flat: number): bigint {
  const size = dtypeSize(indices.dtype);
  const view = new DataView(indices.data.buffer, indices.data.byteOffset + flat * size, size);
  switch (indices.dtype) {
    case 'int8':
      return BigInt(view.getInt8(0));
    case 'uint8':
      return BigInt(view.getUint8(0));
    case 'int16':
      return BigInt(view.getInt16(0, true));
    case 'uint16':
      return BigInt(view.getUint16(0, true));
    case 'int32':
      return BigInt(view.getInt32(0, true));
    case 'uint32':
      return BigInt(view.getUint32(0, true));
    case 'int64':
      return view.getBigInt64(0, true);
    case 'uint64':
      return view.getBigUint64(0, true);
    default:
      throw new Error(`reference: not an index dtype ${indices.dtype}`);
  }
}

function count(shape: Shape): number {
  return shape.reduce((a, b) => a * b, 1);
}

function multiIndex(flat: number, shape: Shape): number[] {
  const m = new Array<number>(shape.length);
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = shape[i] as number;
    m[i] = flat % d;
    flat = Math.floor(flat / d);
  }
  return m;
}

function flatIndex(m: readonly number[], shape: Shape): number {
  let flat = 0;
  for (let i = 0; i < shape.length; i++) flat = flat * (shape[i] as number) + (m[i] as number);
  return flat;
}

/** The index resolved against a dim of size `size`, or undefined when out of [-size, size-1]. */
function resolve(value: bigint, size: number): number | undefined {
  const s = BigInt(size);
  if (value < -s || value >= s) return undefined;
  return Number(value < 0n ? value + s : value);
}

function rangeMessage(op: string, value: bigint, size: number, at: number[], where: string) {
  return `${op}: index ${value} out of range [${-size}, ${size - 1}] at indices[${at.join(',')}] ${where}`;
}

function copyElement(src: Tensor, srcFlat: number, dst: Uint8Array, dstFlat: number): void {
  const size = dtypeSize(src.dtype);
  for (let b = 0; b < size; b++) dst[dstFlat * size + b] = src.data[srcFlat * size + b] as number;
}

/** out[m] = data[m with m[axis] := indices[m]] for every m in indices' shape. */
export function refGatherElements(
  data: Tensor,
  indices: Tensor,
  axis: number,
  oob: RefOob = 'error',
): RefResult {
  const r = data.shape.length;
  const a = axis < 0 ? axis + r : axis;
  const size = data.shape[a] as number;
  const n = count(indices.shape);
  const out = new Uint8Array(n * dtypeSize(data.dtype));
  for (let f = 0; f < n; f++) {
    const m = multiIndex(f, indices.shape);
    const value = readIndex(indices, f);
    const p = resolve(value, size);
    if (p === undefined) {
      if (oob === 'zero') continue;
      return { ok: false, message: rangeMessage('GatherElements', value, size, m, `(axis=${a})`) };
    }
    const at = [...m];
    at[a] = p;
    copyElement(data, flatIndex(at, data.shape), out, f);
  }
  return { ok: true, tensor: { dtype: data.dtype, shape: [...indices.shape], data: out } };
}

/**
 * out[t..., s...] = data[t[:b]..., resolved indices[t...], s...] for every index tuple position t
 * (indices.shape[:-1]) and slice position s (data.shape[b+k:]).
 */
export function refGatherND(
  data: Tensor,
  indices: Tensor,
  batchDims: number,
  oob: RefOob = 'error',
  flattenBatch = false,
): RefResult {
  const q = indices.shape.length;
  const k = indices.shape[q - 1] as number;
  const b = batchDims;
  const lead = indices.shape.slice(0, q - 1);
  const tail = data.shape.slice(b + k);
  const outShape = [...lead, ...tail];
  const item = dtypeSize(data.dtype);
  const out = new Uint8Array(count(outShape) * item);
  const tuples = count(lead);
  const sliceLength = count(tail);
  for (let t = 0; t < tuples; t++) {
    const tm = multiIndex(t, lead);
    const coords: number[] = [];
    for (let c = 0; c < k; c++) {
      const value = readIndex(indices, t * k + c);
      const size = data.shape[b + c] as number;
      const p = resolve(value, size);
      if (p === undefined) {
        if (oob === 'zero') break;
        return {
          ok: false,
          message: rangeMessage('GatherND', value, size, [...tm, c], `(data axis ${b + c})`),
        };
      }
      coords.push(p);
    }
    if (coords.length < k) continue;
    for (let s = 0; s < sliceLength; s++) {
      const sm = multiIndex(s, tail);
      const at = [...tm.slice(0, b), ...coords, ...sm];
      copyElement(data, flatIndex(at, data.shape), out, flatIndex([...tm, ...sm], outShape));
    }
  }
  const shape = flattenBatch && b > 0 ? [count(lead.slice(0, b)), ...outShape.slice(b)] : outShape;
  return { ok: true, tensor: { dtype: data.dtype, shape, data: out } };
}

// ---- Inputs for the property tests: random data bytes of item sizes that
// hit every copy path (1, 2, 3, 4, 8, 16 bytes; 280 bytes for the memmove path) and index values
// that are mostly in range, sometimes just outside, sometimes far outside (2^32+1, 2^53+1, 2^64-1).

export const DATA_DTYPES: readonly Dtype[] = [
  'uint8',
  'int16',
  'S3',
  'float32',
  'float64',
  'complex128',
  'U70',
  'bfloat16',
];

export const INDEX_DTYPES: readonly IntegerDtype[] = [
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
];

const WILD: Record<IntegerDtype, readonly bigint[]> = {
  int8: [127n, -128n],
  uint8: [255n],
  int16: [32767n, -32768n],
  uint16: [65535n],
  int32: [2n ** 31n - 1n, -(2n ** 31n)],
  uint32: [2n ** 32n - 1n],
  int64: [2n ** 32n + 1n, -(2n ** 32n) - 1n, 2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n],
  uint64: [2n ** 32n + 1n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n],
};

/** A dim of size 1..max, or (1 in 10) 0. */
export const dim = (max: number): fc.Arbitrary<number> =>
  fc.oneof(
    { arbitrary: fc.integer({ min: 1, max }), weight: 9 },
    { arbitrary: fc.constant(0), weight: 1 },
  );

export interface IndexDraw {
  readonly kind: 'in' | 'edge' | 'wild';
  readonly r: number;
}

export const indexDraw: fc.Arbitrary<IndexDraw> = fc.record({
  kind: fc.oneof(
    { arbitrary: fc.constant('in' as const), weight: 40 },
    { arbitrary: fc.constant('edge' as const), weight: 1 },
    { arbitrary: fc.constant('wild' as const), weight: 1 },
  ),
  r: fc.nat(),
});

export const indexDraws = (n: number): fc.Arbitrary<IndexDraw[]> =>
  fc.array(indexDraw, { minLength: n, maxLength: n });

const SIGNED = new Set<IntegerDtype>(['int8', 'int16', 'int32', 'int64']);

/** An index value for a dim of `size` (<= 5 here), representable in `dtype`. */
export function indexValue(draw: IndexDraw, size: number, dtype: IntegerDtype): bigint {
  const signed = SIGNED.has(dtype);
  if (draw.kind === 'wild' || (draw.kind === 'in' && size === 0)) {
    const wild = WILD[dtype];
    return wild[draw.r % wild.length] as bigint;
  }
  if (draw.kind === 'edge') {
    const over = BigInt(size + (draw.r % 3));
    return signed && draw.r % 2 === 1 ? -over - 1n : over;
  }
  return BigInt(signed ? (draw.r % (2 * size)) - size : draw.r % size);
}

/** `n` elements of `dtype` filled with xorshift bytes from `seed` (every bit pattern is fair). */
export function randomData(dtype: Dtype, shape: Shape, seed: number): Tensor {
  const n = shape.reduce((a, b) => a * b, 1) * dtypeSize(dtype);
  const bytes = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return createTensor(dtype, shape, bytes);
}
