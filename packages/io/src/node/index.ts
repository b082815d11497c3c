export { fileError, ioError } from './errors.js';
export {
  type FileGatherMode,
  type FileGatherOptions,
  type FileGatherStream,
  gatherFromFile,
} from './gather-file/index.js';
export { readNpyFile } from './npy-file.js';
export {
  MAX_STREAM_BYTES,
  type ReadStreamOptions,
  readStdin,
  readStream,
} from './read.js';
export { readDeclaredBytes } from './read-declared.js';
export { type ByteSource, bufferSource, openSource } from './source.js';
export {
  rangeReadable,
  type ShardedInfo,
  STREAM_CHUNK_BYTES,
  type StoredTensor,
  type TensorFile,
} from './stored.js';
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
  type ChunkOptions,
  collectStream,
  isTensorStream,
  streamOfTensor,
  type TensorStream,
  widenStream,
} from './tensor-stream.js';
export {
  type ByteChunks,
  removePendingTempFilesSync,
  writeFileAtomic,
  writeStdout,
  writeStream,
} from './write.js';
export { type OutputTarget, resolveOutputTarget, writeOutputPath } from './write-target.js';
