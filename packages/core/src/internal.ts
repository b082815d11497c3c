// @tensorops/core/internal: the building blocks that tensorops' own packages (@tensorops/io,
// @tensorops/gather-tree) share with core. UNSTABLE: these names may change or go in any release,
// minor and patch included; a user of the library needs only the main entry.
export { describeValue } from './check-tensor.js';
export { copyElement, type WordView, wordView, wordWidth } from './copy.js';
export { integerRange } from './dtype.js';
export {
  alignedView,
  decodeIndices,
  type IndexContext,
  type ValueView,
  type ValueViewDtype,
  type ValueViews,
  valueView,
  ZERO_FILL,
} from './indices.js';
export { outputTensor } from './tensor.js';
export {
  setWasmKernelsEnabled,
  type WasmInstance,
  type WasmOwnMemoryInstance,
  wasmModule,
  wasmWithOwnMemory,
} from './wasm/instantiate.js';
