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
export { quantizedBlocks } from '../file/gguf-file.js';
export type {
  GgufInfo,
  ShardedInfo,
  StoredTensor,
  TensorFile,
} from '../file/stored.js';
export {
  type ChunkOptions,
  collectStream,
  streamOfTensor,
  type TensorStream,
  widenStream,
} from '../file/tensor-stream.js';
export type { GgufArray, GgufEntry, GgufValue } from '../gguf/metadata.js';
export { type NpyStreamOptions, openNpyStream } from './npy-stream.js';
export { gatherFromPipe, type PipeGather } from './pipe-gather.js';
export {
  type ReadStreamOptions,
  readStdin,
  readStream,
} from './read.js';
export { readDeclaredBytes } from './read-declared.js';
export { readNpyFile } from './read-npy-file.js';
export {
  inspectTensorFile,
  type NamedTensorData,
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
