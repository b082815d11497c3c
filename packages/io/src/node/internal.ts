// @tensorops/io/node/internal: the building blocks that the tensorops CLI shares with the library,
// for Node. UNSTABLE: these names may change or go in any release, minor and patch included; a
// user of the library needs only the main and /node entries.
export { canReadMany } from '../file/capabilities.js';
export { ioError } from '../file/errors.js';
export { rangeReadable } from '../file/stored.js';
export { isTensorStream } from '../file/tensor-stream.js';
export { isHttpUrl, printableUrl } from '../remote/http-source.js';
export { httpHeaderProblem } from '../remote/request-headers.js';
export { isShardIndexPath } from '../shard-index.js';
export { type EncodedTensors, encodeTensors, openTensorHeader } from './tensor-file.js';
export { isOpenable } from './tensor-ref.js';
