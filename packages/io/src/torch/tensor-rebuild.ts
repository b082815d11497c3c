// What torch's rebuild functions would make of their arguments, as records: a storage from its
// persistent id, a tensor from `_rebuild_tensor_v2` / `_v3` / `_rebuild_qtensor` (a quantized
// one: its scale and zero points are checked for form and dropped), a parameter (the tensor it
// wraps) from `_rebuild_parameter` / `_with_state`. Every argument is checked for the type torch
// passes; the view must lie inside its storage, so no later read is sized by a lie.

import { quote } from '../text.js';
import { pickleError } from './pickle-error.js';
import {
  isKind,
  kindOf,
  type PickleValue,
  type StorageValue,
  type TensorValue,
  type TupleValue,
} from './pickle-values.js';
import {
  QSCHEMES,
  QUANTIZED_DTYPES,
  STORAGE_CLASS_DTYPES,
  TORCH_DTYPE_SIZES,
  VALUES_PER_ELEMENT,
} from './torch-dtypes.js';

const UNTYPED_STORAGE = 'torch.storage.UntypedStorage';
/** As numpy's NPY_MAXDIMS; it also bounds the work of one rebuild, however often its shape is reused. */
const MAX_DIMS = 64;

function count(value: PickleValue, what: string): number {
  if (typeof value !== 'number' || value < 0) {
    throw pickleError(`${what} is ${kindOf(value)}, not an int from 0 to 2^53`);
  }
  return value;
}

function ints(value: PickleValue, what: string): number[] {
  if (!isKind(value, 'tuple')) {
    throw pickleError(`${what} is ${kindOf(value)}, not a tuple of ints`);
  }
  if (value.items.length > MAX_DIMS) {
    throw pickleError(`${what} has ${value.items.length} dims, more than ${MAX_DIMS}`);
  }
  return value.items.map((item) => count(item, `an element of ${what}`));
}

function isDict(value: PickleValue): boolean {
  return isKind(value, 'dict');
}

/** The persistent id `('storage', storage_type, key, location, numel)` torch.save writes. */
export function storageOf(pid: PickleValue): StorageValue {
  if (!isKind(pid, 'tuple') || pid.items[0] !== 'storage') {
    throw pickleError(`persistent id is ${kindOf(pid)}, not a ('storage', ...) tuple`);
  }
  if (pid.items.length !== 5) {
    throw pickleError(`storage persistent id has ${pid.items.length} items, not 5`);
  }
  const [, type, key, location, numel] = pid.items as [
    unknown,
    PickleValue,
    PickleValue,
    PickleValue,
    PickleValue,
  ];
  if (!isKind(type, 'global')) {
    throw pickleError(`storage type is ${kindOf(type)}, not a storage class`);
  }
  const untyped = type.name === UNTYPED_STORAGE;
  const dtype = untyped ? 'uint8' : STORAGE_CLASS_DTYPES.get(type.name.replace(/^torch\./, ''));
  if (dtype === undefined) throw pickleError(`${quote(type.name)} is not a storage class`);
  if (typeof key !== 'string') throw pickleError(`storage key is ${kindOf(key)}, not str`);
  if (typeof location !== 'string') {
    throw pickleError(`storage location is ${kindOf(location)}, not str`);
  }
  return { kind: 'storage', key, dtype, untyped, numel: count(numel, 'storage numel') };
}

function storageArg(value: PickleValue): StorageValue {
  if (!isKind(value, 'storage')) {
    throw pickleError(`a tensor's storage is ${kindOf(value)}, not a persistent storage`);
  }
  return value;
}

/** The storage seen as elements of `dtype`: an UntypedStorage counts bytes, a typed one elements. */
function storageAs(storage: StorageValue, dtype: string): StorageValue {
  if (storage.dtype === dtype) return storage;
  const size = TORCH_DTYPE_SIZES.get(dtype) as number;
  if (!storage.untyped) {
    throw pickleError(`storage ${quote(storage.key)} holds ${storage.dtype}, not ${dtype}`);
  }
  if (storage.numel % size !== 0) {
    throw pickleError(
      `storage ${quote(storage.key)} has ${storage.numel} bytes, not a whole number of ${dtype}`,
    );
  }
  return { ...storage, dtype, numel: storage.numel / size };
}

function tensorOf(args: readonly PickleValue[], dtype: string | undefined): TensorValue {
  const [storageValue, offsetValue, shapeValue, stridesValue, requiresGrad, hooks] =
    args as PickleValue[];
  const raw = storageArg(storageValue as PickleValue);
  const storage = storageAs(raw, dtype ?? raw.dtype);
  const storageOffset = count(offsetValue as PickleValue, 'storage offset');
  const shape = ints(shapeValue as PickleValue, 'tensor shape');
  const strides = ints(stridesValue as PickleValue, 'tensor strides');
  if (shape.length !== strides.length) {
    throw pickleError(`tensor shape has ${shape.length} dims, its strides ${strides.length}`);
  }
  if (typeof requiresGrad !== 'boolean') {
    throw pickleError(`requires_grad is ${kindOf(requiresGrad as PickleValue)}, not bool`);
  }
  if (!isDict(hooks as PickleValue)) {
    throw pickleError(`backward hooks are ${kindOf(hooks as PickleValue)}, not a dict`);
  }
  checkExtent(storage, storageOffset, shape, strides);
  return { kind: 'tensor', storage, dtype: storage.dtype, storageOffset, shape, strides };
}

/**
 * The last value the view reaches lies inside the storage (an empty view: its offset does); a
 * packed dtype's offset and strides count values, several to a storage element. In doubles:
 * every term is an integer, exact below 2^53, and rounding never brings a sum at or above 2^53
 * back under a numel, which is below it.
 */
function checkExtent(storage: StorageValue, offset: number, shape: number[], strides: number[]) {
  let end = offset;
  if (shape.every((dim) => dim > 0)) {
    end += 1;
    shape.forEach((dim, i) => {
      end += (dim - 1) * (strides[i] as number);
    });
  }
  const values = storage.numel * (VALUES_PER_ELEMENT.get(storage.dtype) ?? 1);
  if (end > values) {
    throw pickleError(
      `a tensor of shape (${shape.join(', ')}) at offset ${offset} reaches element ${end} ` +
        `of storage ${quote(storage.key)}, which holds ${values}`,
    );
  }
}

function arity(name: string, args: TupleValue, counts: readonly number[]): readonly PickleValue[] {
  if (!counts.includes(args.items.length)) {
    throw pickleError(`${name} takes ${counts.join(' or ')} arguments, not ${args.items.length}`);
  }
  return args.items;
}

function tensorArg(value: PickleValue): TensorValue {
  if (!isKind(value, 'tensor')) {
    throw pickleError(`a parameter wraps ${kindOf(value)}, not a tensor`);
  }
  return value;
}

/**
 * `_rebuild_qtensor(storage, offset, size, stride, quantizer_params, requires_grad, hooks)`: a
 * quantized storage's view. The parameters are `(qscheme, scale, zero_point)` or
 * `(qscheme, scales, zero_points, axis)`, as torch writes them; nothing reads them.
 */
function quantizedTensor(args: TupleValue): TensorValue {
  const items = arity('_rebuild_qtensor', args, [7]);
  const params = items[4] as PickleValue;
  const scheme = isKind(params, 'tuple') ? (params.items[0] as PickleValue) : null;
  const name = isKind(scheme, 'global') ? scheme.name.replace(/^torch\./, '') : '';
  if (!isKind(params, 'tuple') || !QSCHEMES.has(name)) {
    throw pickleError(`_rebuild_qtensor's parameters are not (qscheme, ...)`);
  }
  const count = name.startsWith('per_channel') ? 4 : 3;
  if (params.items.length !== count) {
    throw pickleError(`_rebuild_qtensor's ${name} takes ${count} parameters`);
  }
  const storage = storageArg(items[0] as PickleValue);
  if (!QUANTIZED_DTYPES.has(storage.dtype)) {
    throw pickleError(`_rebuild_qtensor of storage ${quote(storage.key)} holding ${storage.dtype}`);
  }
  return tensorOf([...items.slice(0, 4), ...items.slice(5)], undefined);
}

/** The functions that make a tensor from its storage and view, by global name. */
const TENSOR_REBUILDERS: ReadonlyMap<string, (args: TupleValue) => TensorValue> = new Map([
  [
    'torch._utils._rebuild_tensor_v2',
    (args: TupleValue) => tensorOf(arity('_rebuild_tensor_v2', args, [6, 7]), undefined),
  ],
  [
    'torch._utils._rebuild_tensor_v3',
    (args: TupleValue) => {
      const items = arity('_rebuild_tensor_v3', args, [7, 8]);
      const dtype = items[6] as PickleValue;
      if (!isKind(dtype, 'global')) {
        throw pickleError(`_rebuild_tensor_v3's dtype is ${kindOf(dtype)}, not a torch dtype`);
      }
      const name = dtype.name.replace(/^torch\./, '');
      if (!TORCH_DTYPE_SIZES.has(name)) throw pickleError(`${quote(dtype.name)} is not a dtype`);
      return tensorOf(items, name);
    },
  ],
  ['torch._utils._rebuild_qtensor', quantizedTensor],
  [
    'torch._utils._rebuild_parameter',
    (args: TupleValue) => tensorArg(arity('_rebuild_parameter', args, [3])[0] as PickleValue),
  ],
  [
    'torch._utils._rebuild_parameter_with_state',
    (args: TupleValue) =>
      tensorArg(arity('_rebuild_parameter_with_state', args, [4])[0] as PickleValue),
  ],
]);

/**
 * `_rebuild_from_type_v2(func, torch.Tensor, args, state)`, which torch.save writes for a tensor
 * carrying Python attributes: `func(*args)`, the attributes dropped. `func` must be one of the
 * functions above (never this one), so one REDUCE rebuilds at most one level.
 */
function fromType(args: TupleValue): TensorValue {
  const [func, type, inner] = arity('_rebuild_from_type_v2', args, [4]) as [
    PickleValue,
    PickleValue,
    PickleValue,
  ];
  const rebuild = isKind(func, 'global') ? TENSOR_REBUILDERS.get(func.name) : undefined;
  if (rebuild === undefined) {
    const what = isKind(func, 'global') ? quote(func.name) : kindOf(func);
    throw pickleError(`_rebuild_from_type_v2 of ${what} is not supported`);
  }
  if (!isKind(type, 'global') || type.name !== 'torch.Tensor') {
    throw pickleError('_rebuild_from_type_v2 of a type other than torch.Tensor is not supported');
  }
  if (!isKind(inner, 'tuple')) {
    throw pickleError(`_rebuild_from_type_v2's arguments are ${kindOf(inner)}, not a tuple`);
  }
  return rebuild(inner);
}

/** Each allowed rebuild function: what calling it with `args` would give. */
export const REBUILDERS: ReadonlyMap<string, (args: TupleValue) => TensorValue> = new Map([
  ...TENSOR_REBUILDERS,
  ['torch._tensor._rebuild_from_type_v2', fromType],
]);
