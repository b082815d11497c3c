export {
  decodeNpy,
  encodeNpy,
  encodeNpyChunks,
  encodeNpyHeader,
  MAX_NPY_HEADER_BYTES,
  NPY_ALIGN,
  type NpyByteOrder,
  type NpyHeader,
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
