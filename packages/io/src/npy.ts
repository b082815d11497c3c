// .npy codec (format versions 1.0, 2.0, 3.0). Pure: bytes in, bytes out, no I/O.
// Reading is strict and checks every size before allocating; writing reproduces numpy's own
// header bytes so files round-trip byte for byte.

import {
  checkTensor,
  checkTensorLayout,
  type Dtype,
  dtypeSize,
  isStringDtype,
  parseDtype,
  type Shape,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import { checkBytes } from './bytes-input.js';
import { byteSwapUnit, fortranToC, swapBytesInPlace } from './layout.js';
import { looksLike } from './looks-like.js';
import { describe, type PyValue, parseNpyHeaderDict } from './npy-header.js';
import { quote } from './text.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59] as const; // \x93NUMPY
/** numpy aligns the data to 64 bytes so that it can be memory-mapped for any dtype. */
export const NPY_ALIGN = 64;
/**
 * Largest header read by default: numpy's own default (`max_header_size`), ample for any shape of
 * the 64 dimensions numpy allows. Library callers may raise it, as numpy's callers may.
 */
export const MAX_NPY_HEADER_BYTES = 10_000;

export interface NpyReadOptions {
  /** Refuse headers longer than this many bytes (default {@link MAX_NPY_HEADER_BYTES}). */
  readonly maxHeaderBytes?: number;
}
/** numpy leaves room for the first axis to grow to this many digits without rewriting the header. */
const GROWTH_AXIS_MAX_DIGITS = 21;

export type NpyByteOrder = 'little' | 'big' | 'none';

/** What a .npy header says, read without touching the data. */
export interface NpyHeader {
  readonly version: readonly [number, number];
  /** The descr string as stored, e.g. `>i4`. */
  readonly descr: string;
  readonly dtype: Dtype;
  readonly shape: Shape;
  readonly fortranOrder: boolean;
  /** Byte order of the stored data; `none` for 1-byte elements and byte strings. */
  readonly byteOrder: NpyByteOrder;
  /** Offset of the first data byte from the start of the file. */
  readonly dataOffset: number;
  /** Bytes of data the header claims (shape x item size). */
  readonly nbytes: number;
}

const NUMERIC_CODES: Readonly<Record<string, Dtype>> = {
  b1: 'bool',
  i1: 'int8',
  u1: 'uint8',
  i2: 'int16',
  u2: 'uint16',
  i4: 'int32',
  u4: 'uint32',
  i8: 'int64',
  u8: 'uint64',
  f2: 'float16',
  f4: 'float32',
  f8: 'float64',
  c8: 'complex64',
  c16: 'complex128',
};

const DESCRS: Partial<Record<Dtype, string>> = {
  bool: '|b1',
  int8: '|i1',
  uint8: '|u1',
  int16: '<i2',
  uint16: '<u2',
  int32: '<i4',
  uint32: '<u4',
  int64: '<i8',
  uint64: '<u8',
  float16: '<f2',
  float32: '<f4',
  float64: '<f8',
  complex64: '<c8',
  complex128: '<c16',
};

const LONG_DOUBLE_CODES = new Set(['f16', 'f12', 'f10', 'g', 'c32', 'c24', 'c20', 'G']);

function refuse(descr: string, why: string): never {
  throw new TensorOpsError('E_DTYPE', `.npy dtype ${quote(descr)} refused: ${why}`);
}

function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (const ch of text) if (ch < '0' || ch > '9') return false;
  return true;
}

/** Maps a header descr to a tensorops dtype and byte order, refusing what is not a plain tensor. */
function parseDescr(descr: PyValue): { dtype: Dtype; byteOrder: NpyByteOrder; text: string } {
  if (descr !== null && typeof descr === 'object' && descr.kind === 'list') {
    throw new TensorOpsError(
      'E_DTYPE',
      `.npy structured dtype ${describe(descr)} refused: record arrays are not tensors; save each field as its own array`,
    );
  }
  if (typeof descr !== 'string') {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npy header: 'descr' must be a dtype string like '<f4', got ${describe(descr)}`,
    );
  }
  const order = descr[0];
  const code =
    order === '<' || order === '>' || order === '|' || order === '=' ? descr.slice(1) : descr;
  const kind = code[0];
  if (kind === 'O') refuse(descr, 'object arrays need pickle, which tensorops never runs');
  if (kind === 'M') refuse(descr, 'datetime64 is not supported; save the values as int64');
  if (kind === 'm') refuse(descr, 'timedelta64 is not supported; save the values as int64');
  if (kind === 'V') refuse(descr, 'void (raw record) dtypes are not tensors');
  if (LONG_DOUBLE_CODES.has(code)) {
    refuse(descr, 'long double is platform-specific; save it as float64/complex128');
  }

  let dtype: Dtype | undefined = NUMERIC_CODES[code];
  if (dtype === undefined && (kind === 'U' || kind === 'S') && isDigits(code.slice(1))) {
    try {
      dtype = parseDtype(code);
    } catch {
      refuse(descr, `string width must be 0 to ${0x3fffffff}, without leading zeros`);
    }
  }
  if (dtype === undefined) {
    throw new TensorOpsError(
      'E_DTYPE',
      `.npy dtype ${quote(descr)} unsupported (supported: b1, i1-i8, u1-u8, f2, f4, f8, c8, c16, U<n>, S<n> with '<' or '>')`,
    );
  }
  const single = dtypeSize(dtype) === 1 || kind === 'S';
  if (single) return { dtype, byteOrder: 'none', text: descr };
  // No prefix and '=' mean native order, as numpy reads them: little-endian, the only order
  // tensorops runs on (every engine it targets is little-endian).
  return { dtype, byteOrder: order === '>' ? 'big' : 'little', text: descr };
}

function truncated(what: string, need: number | bigint, have: number): never {
  throw new TensorOpsError(
    'E_FORMAT',
    `.npy ${what} truncated: needs ${need} bytes, only ${have} available`,
  );
}

/**
 * Length of magic + version + length field + header dict: the offset of the data.
 * Needs only the first 12 bytes (10 for version 1.0), so a file reader can call it on a short prefix.
 */
export function npyDataOffset(
  prefix: Uint8Array,
  maxHeaderBytes: number = MAX_NPY_HEADER_BYTES,
): number {
  checkBytes(prefix, 'npyDataOffset', 'prefix');
  if (prefix.length < 8) {
    if (MAGIC.some((b, i) => i < prefix.length && prefix[i] !== b)) badMagic(prefix);
    truncated('preamble', 10, prefix.length);
  }
  if (MAGIC.some((b, i) => prefix[i] !== b)) badMagic(prefix);
  const major = prefix[6] as number;
  const minor = prefix[7] as number;
  if ((major !== 1 && major !== 2 && major !== 3) || minor !== 0) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npy version ${major}.${minor} unsupported (supported: 1.0, 2.0, 3.0)`,
    );
  }
  const fieldEnd = major === 1 ? 10 : 12;
  if (prefix.length < fieldEnd) truncated('preamble', fieldEnd, prefix.length);
  const view = new DataView(prefix.buffer, prefix.byteOffset, fieldEnd);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerLength > maxHeaderBytes) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npy header length ${headerLength} exceeds the ${maxHeaderBytes}-byte limit (numpy's default max_header_size)`,
    );
  }
  return fieldEnd + headerLength;
}

function badMagic(prefix: Uint8Array): never {
  const look = looksLike(prefix);
  throw new TensorOpsError(
    'E_FORMAT',
    `not a .npy file: it does not start with '\\x93NUMPY'${look === undefined ? '' : ` (${look})`}`,
  );
}

function decodeHeaderText(bytes: Uint8Array, major: number): string {
  if (major === 3) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (cause) {
      throw new TensorOpsError('E_FORMAT', '.npy header (version 3.0) is not valid UTF-8', {
        cause,
      });
    }
  }
  // Versions 1.0 and 2.0 are latin-1: one byte, one code point (TextDecoder's 'latin1' is
  // windows-1252, which remaps 0x80-0x9f).
  let text = '';
  for (let i = 0; i < bytes.length; i += 4096) {
    text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return text;
}

interface ParsedHeader extends Omit<NpyHeader, 'shape' | 'nbytes'> {
  readonly dims: readonly bigint[];
  readonly nbytes: bigint;
}

function parseHeader(bytes: Uint8Array, options: NpyReadOptions): ParsedHeader {
  const dataOffset = npyDataOffset(bytes, options.maxHeaderBytes);
  if (bytes.length < dataOffset) truncated('header', dataOffset, bytes.length);
  const major = bytes[6] as number;
  const fieldEnd = major === 1 ? 10 : 12;
  const dict = parseNpyHeaderDict(
    decodeHeaderText(bytes.subarray(fieldEnd, dataOffset), major),
    major <= 2,
  );
  const { dtype, byteOrder, text } = parseDescr(dict.descr);
  let count = 1n;
  for (const d of dict.shape) count *= d;
  return {
    version: [major, 0],
    descr: text,
    dtype,
    dims: dict.shape,
    fortranOrder: dict.fortranOrder,
    byteOrder,
    dataOffset,
    nbytes: count * BigInt(dtypeSize(dtype)),
  };
}

function formatDims(dims: readonly bigint[]): string {
  return `[${dims.join(',')}]`;
}

/** Checks the claimed data size against what is there, then converts the shape to numbers. */
function finishHeader(h: ParsedHeader, available: number | undefined): NpyHeader {
  if (available !== undefined && h.nbytes > BigInt(available)) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npy data truncated: header claims ${h.nbytes} bytes (shape ${formatDims(h.dims)}, dtype ${h.dtype}) but only ${available} bytes follow the header`,
    );
  }
  if (h.nbytes > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npy header claims ${h.nbytes} bytes of data (shape ${formatDims(h.dims)}, dtype ${h.dtype}), beyond 2^53-1`,
    );
  }
  for (const d of h.dims) {
    if (d > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new TensorOpsError(
        'E_FORMAT',
        `.npy header: shape ${formatDims(h.dims)} has dimension ${d}, beyond 2^53-1`,
      );
    }
  }
  const { dims, ...rest } = h;
  return { ...rest, shape: dims.map(Number), nbytes: Number(h.nbytes) };
}

/**
 * Reads only the header: `bytes` must hold at least the first `dataOffset` bytes of the file
 * (see {@link npyDataOffset}); the data need not be present. With `availableDataBytes` (file size
 * minus dataOffset), a header that claims more data than that is refused, comparing exact
 * integers before anything is allocated.
 */
export function readNpyHeader(
  bytes: Uint8Array,
  availableDataBytes?: number,
  options: NpyReadOptions = {},
): NpyHeader {
  checkBytes(bytes, 'readNpyHeader');
  return finishHeader(parseHeader(bytes, options), availableDataBytes);
}

/** Largest power of two dividing the item size, capped at 8: what a typed-array view needs. */
function alignmentOf(itemSize: number): number {
  // Zero-width strings (U0, S0) hold no bytes: any offset will do.
  return Math.min(8, itemSize & -itemSize) || 1;
}

/**
 * Builds the tensor from a header and exactly `header.nbytes` data bytes: byte-swaps big-endian
 * data and transposes Fortran order into little-endian C order. The result may share memory with
 * `data` when no conversion is needed and `data` is aligned for the item size.
 */
export function npyDataToTensor(header: NpyHeader, data: Uint8Array): Tensor {
  checkBytes(data, 'npyDataToTensor', 'data');
  if (data.byteLength !== header.nbytes) {
    truncated('data', header.nbytes, data.byteLength);
  }
  const itemSize = dtypeSize(header.dtype);
  const transpose = header.fortranOrder && header.shape.length >= 2 && header.nbytes > 0;
  const swap = header.byteOrder === 'big' ? byteSwapUnit(header.dtype) : 1;
  let out: Uint8Array;
  if (transpose) out = fortranToC(data, header.shape, itemSize);
  // new Uint8Array(typedArray) copies; Buffer#slice would not.
  else if (swap > 1 || data.byteOffset % alignmentOf(itemSize) !== 0) out = new Uint8Array(data);
  else out = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  swapBytesInPlace(out, swap);
  return { dtype: header.dtype, shape: [...header.shape], data: out };
}

/**
 * Decodes a whole .npy file. Strict: the header must be what numpy writes (exact key set, a known
 * dtype, non-negative integer dims) and the data at least as long as the shape needs (trailing
 * bytes are ignored, as numpy ignores them). Errors are TensorOpsError E_FORMAT or E_DTYPE.
 */
export function decodeNpy(bytes: Uint8Array, options: NpyReadOptions = {}): Tensor {
  checkBytes(bytes, 'decodeNpy');
  const parsed = parseHeader(bytes, options);
  const header = finishHeader(parsed, bytes.length - parsed.dataOffset);
  const start = header.dataOffset;
  return npyDataToTensor(header, bytes.subarray(start, start + header.nbytes));
}

/** The descr numpy writes for a dtype; bfloat16 and float8 have none. */
export function npyDescr(dtype: Dtype): string {
  const descr = DESCRS[dtype];
  if (descr !== undefined) return descr;
  if (isStringDtype(dtype)) {
    dtypeSize(dtype); // validates the width
    return dtype[0] === 'U' ? `<${dtype}` : `|${dtype}`;
  }
  throw new TensorOpsError(
    'E_DTYPE',
    `.npy has no dtype for ${dtype}; convert it to float32 first (supported: bool, int8-int64, uint8-uint64, float16, float32, float64, complex64, complex128, U<n>, S<n>)`,
  );
}

function pythonTuple(shape: Shape): string {
  if (shape.length === 1) return `(${shape[0]},)`;
  return `(${shape.join(', ')})`;
}

function isLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

/**
 * The header bytes numpy writes for a little-endian C-order array of this dtype and shape:
 * magic, version, length, the dict with numpy's growth padding, spaces and a final newline so
 * that the data starts on a 64-byte boundary. Version 1.0 unless the header needs more.
 */
export function encodeNpyHeader(t: Pick<Tensor, 'dtype' | 'shape'>): Uint8Array {
  checkTensorLayout(t, 'tensor');
  const descr = npyDescr(t.dtype);
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${pythonTuple(t.shape)}, }`;
  if (t.shape.length > 0) {
    dict += ' '.repeat(Math.max(0, GROWTH_AXIS_MAX_DIGITS - String(t.shape[0]).length));
  }
  const latin1 = isLatin1(dict);
  const body = latin1
    ? Uint8Array.from(dict, (c) => c.charCodeAt(0))
    : new TextEncoder().encode(dict);
  // Same rule as numpy's _wrap_header: pad is 1..64 (a full 64 when already aligned).
  const withNewline = body.length + 1;
  let major = 1;
  let fieldEnd = 10;
  let pad = NPY_ALIGN - ((fieldEnd + withNewline) % NPY_ALIGN);
  if (!latin1 || withNewline + pad > 0xffff) {
    major = latin1 ? 2 : 3;
    fieldEnd = 12;
    pad = NPY_ALIGN - ((fieldEnd + withNewline) % NPY_ALIGN);
  }
  const headerLength = withNewline + pad;
  const out = new Uint8Array(fieldEnd + headerLength);
  out.set(MAGIC);
  out[6] = major;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, headerLength, true);
  else view.setUint32(8, headerLength, true);
  out.set(body, fieldEnd);
  out.fill(0x20, fieldEnd + body.length, out.length - 1);
  out[out.length - 1] = 0x0a;
  return out;
}

/**
 * The .npy file of a tensor as two chunks, numpy's header and the tensor's own data (not copied),
 * for writers that stream them out. Validates the dtype and the data length first.
 */
export function encodeNpyChunks(t: Tensor): [header: Uint8Array, data: Uint8Array] {
  checkTensor(t, 'tensor');
  return [encodeNpyHeader(t), t.data];
}

/** Encodes a tensor as a .npy file: numpy's header, then the data, nothing after it. */
export function encodeNpy(t: Tensor): Uint8Array {
  const [header, data] = encodeNpyChunks(t);
  const out = new Uint8Array(header.length + data.length);
  out.set(header);
  out.set(data, header.length);
  return out;
}
