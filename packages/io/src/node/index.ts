export { readNpyFile } from './npy-file.js';
export {
  MAX_STREAM_BYTES,
  type ReadStreamOptions,
  readStdin,
  readStream,
} from './read.js';
export { readTensorFile, writeTensorFile } from './tensor-file.js';
export {
  type ByteChunks,
  removePendingTempFilesSync,
  writeFileAtomic,
  writeStdout,
  writeStream,
} from './write.js';
