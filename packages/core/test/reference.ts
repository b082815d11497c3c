import { type Dtype, dtypeSize, type Tensor } from '../src/index.js';

// A slow, obviously-correct Gather to check the kernel against: one output element at a time,
// its source found by the OpenVINO Gather-7 formula
//   out[p_0..p_{axis-1}, i_b..i_{q-1}, j..] = data[p_0..p_{axis-1}, indices[p_0..p_{b-1}, i_b..i_{q-1}], j..]
// and its bytes copied one by one. Index values are read as bigint, so nothing can alias.

export interface ReferenceOptions {
  readonly axis?: number;
  readonly batchDims?: number;
  readonly oob?: 'error' | 'zero';
}

export type ReferenceResult =
  | { readonly ok: true; readonly tensor: Tensor }
  | { readonly ok: false; readonly code: string; readonly message: string };

function readIndex(view: DataView, dtype: Dtype, i: number): bigint {
  switch (dtype) {
    case 'int8':
      return BigInt(view.getInt8(i));
    case 'uint8':
      return BigInt(view.getUint8(i));
    case 'int16':
      return BigInt(view.getInt16(2 * i, true));
    case 'uint16':
      return BigInt(view.getUint16(2 * i, true));
    case 'int32':
      return BigInt(view.getInt32(4 * i, true));
    case 'uint32':
      return BigInt(view.getUint32(4 * i, true));
    case 'int64':
      return view.getBigInt64(8 * i, true);
    case 'uint64':
      return view.getBigUint64(8 * i, true);
    default:
      throw new Error(`not an index dtype: ${dtype}`);
  }
}

function product(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/** Flat C-order offset of a multi-index. */
function flatten(index: readonly number[], shape: readonly number[]): number {
  let flat = 0;
  for (let i = 0; i < shape.length; i++) flat = flat * (shape[i] as number) + (index[i] as number);
  return flat;
}

/** Every multi-index of `shape` in C order. */
function* multiIndices(shape: readonly number[]): Generator<number[]> {
  if (product(shape) === 0) return;
  const index = shape.map(() => 0);
  for (;;) {
    yield [...index];
    let d = shape.length - 1;
    while (d >= 0) {
      index[d] = (index[d] as number) + 1;
      if ((index[d] as number) < (shape[d] as number)) break;
      index[d] = 0;
      d--;
    }
    if (d < 0) return;
  }
}

const fail = (code: string, message: string): ReferenceResult => ({ ok: false, code, message });

export function referenceGather(
  data: Tensor,
  indices: Tensor,
  options: ReferenceOptions = {},
): ReferenceResult {
  const r = data.shape.length;
  const q = indices.shape.length;
  const axisIn = options.axis ?? 0;
  const batchIn = options.batchDims ?? 0;
  if (r === 0) return fail('E_SHAPE', 'Gather: data must have rank >= 1, got a scalar');
  if (!Number.isInteger(axisIn) || axisIn < -r || axisIn >= r) {
    return fail('E_AXIS', `Gather: axis ${axisIn} out of range [${-r}, ${r - 1}] for rank ${r}`);
  }
  const axis = axisIn < 0 ? axisIn + r : axisIn;
  const limit = Math.min(r, q);
  if (!Number.isInteger(batchIn) || batchIn < -limit || batchIn > limit) {
    return fail(
      'E_BATCH_DIMS',
      `Gather: batch_dims ${batchIn} out of range [${-limit}, ${limit}] for data rank ${r} and indices rank ${q}`,
    );
  }
  const b = batchIn < 0 ? batchIn + q : batchIn;
  if (b > axis) {
    return fail('E_BATCH_DIMS', `Gather: batch_dims ${batchIn} must not exceed axis ${axis}`);
  }
  for (let i = 0; i < b; i++) {
    if (data.shape[i] !== indices.shape[i]) {
      return fail(
        'E_SHAPE',
        `Gather: batch dims differ: data [${data.shape.join(',')}] vs indices [${indices.shape.join(',')}] at dim ${i} (batch_dims=${b})`,
      );
    }
  }
  if (
    !['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'].includes(
      indices.dtype,
    )
  ) {
    return fail('E_DTYPE', `Gather: indices must have an integer dtype, got ${indices.dtype}`);
  }

  const s = data.shape[axis] as number;
  const idxView = new DataView(
    indices.data.buffer,
    indices.data.byteOffset,
    indices.data.byteLength,
  );
  const zeroFill = options.oob === 'zero';
  for (const position of multiIndices(indices.shape)) {
    const v = readIndex(idxView, indices.dtype, flatten(position, indices.shape));
    if ((v < -BigInt(s) || v >= BigInt(s)) && !zeroFill) {
      return fail(
        'E_INDEX_RANGE',
        `Gather: index ${v} out of range [${-s}, ${s - 1}] at indices[${position.join(',')}] (axis=${axis})`,
      );
    }
  }

  const outShape = [
    ...data.shape.slice(0, axis),
    ...indices.shape.slice(b),
    ...data.shape.slice(axis + 1),
  ];
  const item = dtypeSize(data.dtype);
  const out = new Uint8Array(product(outShape) * item);
  const perIndex = q - b;
  for (const o of multiIndices(outShape)) {
    const p = o.slice(0, axis);
    const indexPosition = [...o.slice(0, b), ...o.slice(axis, axis + perIndex)];
    let k = readIndex(idxView, indices.dtype, flatten(indexPosition, indices.shape));
    if (k < 0n) k += BigInt(s);
    if (k < 0n || k >= BigInt(s)) continue; // oob 'zero': the output stays zero
    const source = [...p, Number(k), ...o.slice(axis + perIndex)];
    const from = flatten(source, data.shape) * item;
    const to = flatten(o, outShape) * item;
    for (let byte = 0; byte < item; byte++) out[to + byte] = data.data[from + byte] as number;
  }
  return { ok: true, tensor: { dtype: data.dtype, shape: outShape, data: out } };
}
