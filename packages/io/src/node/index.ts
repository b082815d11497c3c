export { spillNpyStream } from '../fast/spill/index.js';
export { fileError, ioError } from '../file/errors.js';
export {
  type FileGatherMode,
  type FileGatherOptions,
  type FileGatherStream,
  gatherFromFile,
} from '../file/gather-file/index.js';
export {
  gatherFromNpyStream,
  type NpyOnStream,
  type StreamGatherOptions,
  type StreamGatherStream,
} from '../file/gather-file/stream-sweep.js';
export { type ByteSource, bufferSource } from '../file/source.js';
export {
  rangeReadable,
  type ShardedInfo,
  STREAM_CHUNK_BYTES,
  type StoredTensor,
  type TensorFile,
} from '../file/stored.js';
export {
  type ChunkOptions,
  collectStream,
  isTensorStream,
  streamOfTensor,
  type TensorStream,
  widenStream,
} from '../file/tensor-stream.js';
export { type NpyStreamOptions, openNpyStream } from './npy-stream.js';
export { gatherFromPipe, type PipeGather } from './pipe-gather.js';
export {
  MAX_STREAM_BYTES,
  type ReadStreamOptions,
  readStdin,
  readStream,
} from './read.js';
export { readDeclaredBytes } from './read-declared.js';
export { readNpyFile } from './read-npy-file.js';
export { openSource } from './source.js';
export {
  type EncodedTensors,
  encodeTensors,
  inspectTensorFile,
  type NamedTensorData,
  NPY_MAX_DIMS,
  type OpenTensorFileOptions,
  openTensorBytes,
  openTensorFile,
  readTensorFile,
  type TensorFileInfo,
  type WriteNote,
  type WriteOptions,
  writeTensorFile,
  writeTensorsFile,
} from './tensor-file.js';
export { resolveTensorRefOnDisk } from './tensor-ref.js';
export {
  type ByteChunks,
  removePendingTempFilesSync,
  writeFileAtomic,
  writeStdout,
  writeStream,
} from './write.js';
export { type OutputTarget, resolveOutputTarget, writeOutputPath } from './write-target.js';
