// The dtypes a torch checkpoint may hold, by torch's name (`torch.float32` arrives as the global
// `torch float32`), with their item sizes, and the legacy typed storage classes torch.save names
// for the older dtypes (newer ones go through an UntypedStorage and `_rebuild_tensor_v3`).

import { DTYPE_SIZES } from '@tensorops/core';

/** torch's dtype names that tensorops knows, which are numpy's and ml_dtypes' names too. */
export const TORCH_DTYPE_SIZES: ReadonlyMap<string, number> = new Map(Object.entries(DTYPE_SIZES));

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
]);
