export {
  formatOfPath,
  isWidenable,
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
  MAX_NPY_HEADER_BYTES,
  NPY_ALIGN,
  type NpyByteOrder,
  type NpyHeader,
  type NpyReadOptions,
  npyDataOffset,
  npyDataToTensor,
  npyDescr,
  readNpyHeader,
} from './npy.js';
export {
  type NpyHeaderDict,
  type PyValue,
  parseNpyHeaderDict,
  parsePyLiteral,
} from './npy-header.js';
export { checkDeflateRatio, DEFLATE_MAX_RATIO, npzMemberName, npzTensorName } from './npz.js';
export {
  type HttpEvent,
  type HttpRetry,
  HttpSource,
  type HttpSourceOptions,
  isHttpUrl,
  openHttpSource,
  printableUrl,
} from './remote/http-source.js';
export { httpHeaderProblem } from './remote/request-headers.js';
export {
  type DecodedSafetensors,
  decodeSafetensors,
  dtypeOfSafetensors,
  encodeSafetensors,
  type NamedTensor,
  parseSafetensorsHeader,
  planSafetensors,
  SAFETENSORS_DTYPES,
  SAFETENSORS_MAX_HEADER_BYTES,
  type SafetensorsEntry,
  type SafetensorsHeader,
  type SafetensorsLayout,
  type SafetensorsWriteEntry,
  safetensorsDisplayDtype,
  safetensorsDtypeName,
  safetensorsEntryTensor,
  safetensorsHeaderLength,
} from './safetensors.js';
export { isShardIndexPath, parseShardIndex, type ShardIndex } from './shard-index.js';
export {
  type JsonNumber,
  type JsonObject,
  type JsonValue,
  parseStrictJson,
} from './strict-json.js';
export { fileStem, parseOutputRef, resolveTensorRef, type TensorRef } from './tensor-ref.js';
