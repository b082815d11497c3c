export {
  formatOfPath,
  storedDtype,
  TENSOR_FORMATS,
  type TensorFormat,
  widenBytesToFloat32,
  widenToFloat32,
} from './convert.js';
export {
  type FileGatherMode,
  type FileGatherOptions,
  type FileGatherStream,
  gatherFromFile,
} from './file/gather-file/index.js';
export type { OpenUrlOptions } from './file/open-url.js';
export { type OpenBlobOptions, openTensorBlob, openTensorUrl } from './file/open-web.js';
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
export {
  type JsonNumber,
  type JsonObject,
  type JsonValue,
  parseStrictJson,
} from './strict-json.js';
export { fileStem, parseOutputRef, resolveTensorRef, type TensorRef } from './tensor-ref.js';
