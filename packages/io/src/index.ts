// @tensorops/io's main entry: the codecs, tensor files from a Blob / File or a URL, and the
// gather executor. Reading a file is runtime-neutral and lives in file/: a ByteSource (a file
// handle, a buffer, a Blob's slices, HTTP ranges from remote/) under the format readers, the .npz
// rules over any zip library, sharded checkpoints and the reference gather; fast/ holds the faster
// gather strategies behind one seam. node/ (@tensorops/io/node) adds only what needs Node: paths,
// pipes and devices, stdin/stdout, atomic writes, a pipe's temp copy (fast/spill/) and yauzl/yazl
// for .npz; this entry reads .npz with zip.js and inflates with DecompressionStream, both loaded
// on first use. Code outside node/ that can use a Node API (fast/pick-mode.ts asks for the free
// memory) gets it from the runtime (process.getBuiltinModule) and does without it elsewhere.
export {
  formatOfPath,
  type InputFormat,
  storedDtype,
  TENSOR_FORMATS,
  type TensorFormat,
  widenBytesToFloat32,
  widenToFloat32,
} from './convert.js';
export { type DataTextOptions, parseDataText, readDataText } from './data-text.js';
export { DATA_TEXT_DTYPES, type DataTextDtype } from './data-text-values.js';
export {
  type FileGatherMode,
  type FileGatherOptions,
  type FileGatherStream,
  gatherFromFile,
} from './file/gather-file/index.js';
export type { OpenUrlOptions } from './file/open-url.js';
export { type OpenBlobOptions, openTensorBlob, openTensorUrl } from './file/open-web.js';
export { sliceOfStored } from './file/read-slice.js';
export type { NotATensor, ShardedInfo, StoredTensor, TensorFile } from './file/stored.js';
export {
  type ChunkOptions,
  collectStream,
  type TensorStream,
} from './file/tensor-stream.js';
export { parseIndexText } from './index-text.js';
export {
  decodeNpy,
  encodeNpy,
  encodeNpyChunks,
  encodeNpyHeader,
  type NpyByteOrder,
  type NpyHeader,
  type NpyReadOptions,
  npyDataOffset,
  npyDataToTensor,
  readNpyHeader,
} from './npy.js';
export {
  type NpyHeaderDict,
  type PyValue,
  parseNpyHeaderDict,
  parsePyLiteral,
} from './npy-header.js';
export {
  type HttpEvent,
  type HttpRetry,
  type HttpSourceOptions,
  openHttpSource,
} from './remote/http-source.js';
export {
  type DecodedSafetensors,
  decodeSafetensors,
  encodeSafetensors,
  type NamedTensor,
  parseSafetensorsHeader,
  planSafetensors,
  type SafetensorsEntry,
  type SafetensorsHeader,
  type SafetensorsLayout,
  type SafetensorsWriteEntry,
} from './safetensors.js';
export { parseShardIndex, type ShardIndex } from './shard-index.js';
export { type FittedSlice, firstEntries, fitSlice } from './slice/fit.js';
export { parseSlice, type Slice } from './slice/parse.js';
export { sliceOfTensor } from './slice/segments.js';
export { splitTrailingSlice } from './slice/split-ref.js';
export {
  type JsonNumber,
  type JsonObject,
  type JsonValue,
  parseStrictJson,
} from './strict-json.js';
export { fileStem, parseOutputRef, resolveTensorRef, type TensorRef } from './tensor-ref.js';
