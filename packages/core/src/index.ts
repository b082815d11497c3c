// @tensorops/core: what a user of the library needs. Names shared only with tensorops' own
// packages are in ./internal.ts (@tensorops/core/internal, unstable).
export { checkTensor, checkTensorLayout } from './check-tensor.js';
export {
  DTYPE_SIZES,
  type Dtype,
  dtypeSize,
  type IntegerDtype,
  isIntegerDtype,
  isStringDtype,
  NUMERIC_DTYPES,
  type NumericDtype,
  parseDtype,
  type StringDtype,
} from './dtype.js';
export { type ErrorCode, isTensorOpsError, TensorOpsError } from './errors.js';
export {
  bfloat16ToFloat32Bits,
  bfloat16ToNumber,
  type Float8Dtype,
  float8ToFloat32Bits,
  float8ToNumber,
  float16ToNumber,
  isFloat8Dtype,
  numberToBfloat16,
  numberToFloat16,
} from './float-bits.js';
export {
  type GatherOptions,
  type GatherPlan,
  gather,
  planGather,
  runGatherPlan,
} from './gather.js';
export {
  type GatherElementsOptions,
  type GatherElementsPlan,
  gatherElements,
  planGatherElements,
  runGatherElementsPlan,
} from './gather-elements/index.js';
export {
  type GatherNDOptions,
  type GatherNDPlan,
  gatherND,
  planGatherND,
  runGatherNDPlan,
} from './gather-nd.js';
export type { OobMode } from './indices.js';
export {
  checkShape,
  formatPosition,
  formatShape,
  normalizeAxis,
  type Shape,
  shapeSize,
  shapesEqual,
  sizeBetween,
  stridesOf,
} from './shape.js';
export {
  createTensor,
  type OutputOption,
  type Tensor,
  tensorBytes,
  tensorFrom,
  tensorValues,
} from './tensor.js';
export {
  type TensorArray,
  type TensorArrayDtype,
  type TensorArrays,
  tensorArray,
} from './tensor-array.js';
