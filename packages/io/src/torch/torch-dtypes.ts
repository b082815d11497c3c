// The dtypes a torch checkpoint may hold, by torch's name (`torch.float32` arrives as the global
// `torch float32`), with their item sizes, and the legacy typed storage classes torch.save names
// for the older dtypes (newer ones go through an UntypedStorage and `_rebuild_tensor_v3`).
// Some are dtypes tensorops cannot hold (complex32, quantized): their tensors are listed by name
// and refused only when read.

import { DTYPE_SIZES } from '@tensorops/core';

/** torch's quantized dtypes, with the bytes of one storage element. */
const QUANTIZED_DTYPE_SIZES: ReadonlyMap<string, number> = new Map([
  ['qint8', 1],
  ['quint8', 1],
  ['qint32', 4],
  ['quint4x2', 1],
  ['quint2x4', 1],
]);

/** The dtypes `_rebuild_qtensor` takes its storage in. */
export const QUANTIZED_DTYPES: ReadonlySet<string> = new Set(QUANTIZED_DTYPE_SIZES.keys());

/** How many values one storage element of a packed dtype holds (1 for the others not listed). */
export const VALUES_PER_ELEMENT: ReadonlyMap<string, number> = new Map([
  ['quint4x2', 2],
  ['quint2x4', 4],
]);

/**
 * Every torch dtype name a checkpoint may use, with its storage element size: tensorops' own
 * (which are numpy's and ml_dtypes' names too), then complex32 and the quantized ones, which
 * tensorops cannot hold.
 */
export const TORCH_DTYPE_SIZES: ReadonlyMap<string, number> = new Map([
  ...Object.entries(DTYPE_SIZES),
  ['complex32', 4],
  ...QUANTIZED_DTYPE_SIZES,
]);

/** The quantization schemes a quantized tensor's parameters may name (`torch.per_tensor_affine`). */
export const QSCHEMES: ReadonlySet<string> = new Set([
  'per_tensor_affine',
  'per_tensor_symmetric',
  'per_channel_affine',
  'per_channel_symmetric',
  'per_channel_affine_float_qparams',
]);

/** `torch.<Name>Storage` -> the dtype of its elements, as torch.storage._dtype_to_storage_type_map. */
export const STORAGE_CLASS_DTYPES: ReadonlyMap<string, string> = new Map([
  ['DoubleStorage', 'float64'],
  ['FloatStorage', 'float32'],
  ['HalfStorage', 'float16'],
  ['BFloat16Storage', 'bfloat16'],
  ['LongStorage', 'int64'],
  ['IntStorage', 'int32'],
  ['ShortStorage', 'int16'],
  ['CharStorage', 'int8'],
  ['ByteStorage', 'uint8'],
  ['BoolStorage', 'bool'],
  ['ComplexDoubleStorage', 'complex128'],
  ['ComplexFloatStorage', 'complex64'],
  ['QInt8Storage', 'qint8'],
  ['QUInt8Storage', 'quint8'],
  ['QInt32Storage', 'qint32'],
  ['QUInt4x2Storage', 'quint4x2'],
  ['QUInt2x4Storage', 'quint2x4'],
]);
