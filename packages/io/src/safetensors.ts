// .safetensors codec. Pure: bytes in, bytes out, no I/O.
// Layout: u64 little-endian header length N, N bytes of UTF-8 JSON, then the tensor bytes.
// The reader enforces every rule of the reference implementation (huggingface/safetensors,
// `SafeTensors::read_metadata` + `Metadata::validate`) and two more that JavaScript needs:
// duplicate keys (JSON.parse would keep the last) and integers beyond 2^53 (it would round them).

import {
  checkShape,
  checkTensor,
  type Dtype,
  formatShape,
  type Shape,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import { checkBytes } from './bytes-input.js';
import { looksLike } from './looks-like.js';
import { type ScannedHeader, scanSafetensorsHeader } from './safetensors-scan.js';
import {
  duplicateKeyError,
  isJsonObject,
  type JsonValue,
  jsonKind,
  jsonSafeInteger,
  parseStrictJson,
} from './strict-json.js';
import { quote } from './text.js';
import { isWellFormed } from './well-formed.js';

/** The reference refuses headers larger than this (100 MB, decimal). */
export const SAFETENSORS_MAX_HEADER_BYTES = 100_000_000;

const METADATA_KEY = '__metadata__';
const WHAT = '.safetensors header';

interface FormatDtype {
  /** Bits per element: 4 and 6 for the sub-byte floats. */
  readonly bits: number;
  /** The tensorops dtype, or undefined for sub-byte dtypes (inspectable, never loaded). */
  readonly dtype: Dtype | undefined;
  /** Name of the sub-byte dtype in ml_dtypes, for display. */
  readonly displayName?: string;
}

/**
 * Every dtype of the current format, in the reference's enum order: its writer lays tensors out by
 * descending rank (larger alignments first), then by name, and so does ours.
 */
const FORMAT_DTYPES: ReadonlyMap<string, FormatDtype> = new Map<string, FormatDtype>([
  ['BOOL', { bits: 8, dtype: 'bool' }],
  ['F4', { bits: 4, dtype: undefined, displayName: 'float4_e2m1fn' }],
  ['F6_E2M3', { bits: 6, dtype: undefined, displayName: 'float6_e2m3fn' }],
  ['F6_E3M2', { bits: 6, dtype: undefined, displayName: 'float6_e3m2fn' }],
  ['U8', { bits: 8, dtype: 'uint8' }],
  ['I8', { bits: 8, dtype: 'int8' }],
  ['F8_E5M2', { bits: 8, dtype: 'float8_e5m2' }],
  ['F8_E4M3', { bits: 8, dtype: 'float8_e4m3fn' }],
  ['F8_E8M0', { bits: 8, dtype: 'float8_e8m0fnu' }],
  ['F8_E4M3FNUZ', { bits: 8, dtype: 'float8_e4m3fnuz' }],
  ['F8_E5M2FNUZ', { bits: 8, dtype: 'float8_e5m2fnuz' }],
  ['I16', { bits: 16, dtype: 'int16' }],
  ['U16', { bits: 16, dtype: 'uint16' }],
  ['F16', { bits: 16, dtype: 'float16' }],
  ['BF16', { bits: 16, dtype: 'bfloat16' }],
  ['I32', { bits: 32, dtype: 'int32' }],
  ['U32', { bits: 32, dtype: 'uint32' }],
  ['F32', { bits: 32, dtype: 'float32' }],
  ['C64', { bits: 64, dtype: 'complex64' }],
  ['F64', { bits: 64, dtype: 'float64' }],
  ['I64', { bits: 64, dtype: 'int64' }],
  ['U64', { bits: 64, dtype: 'uint64' }],
]);

const RANK: ReadonlyMap<string, number> = new Map([...FORMAT_DTYPES.keys()].map((k, i) => [k, i]));

const BY_DTYPE: ReadonlyMap<string, string> = new Map(
  [...FORMAT_DTYPES].flatMap(([name, f]) => (f.dtype ? [[f.dtype, name] as const] : [])),
);

/** The safetensors dtype names, in the reference's order. */
export const SAFETENSORS_DTYPES: readonly string[] = [...FORMAT_DTYPES.keys()];

/** The safetensors name of a tensorops dtype, or undefined when the format has none. */
export function safetensorsDtypeName(dtype: Dtype): string | undefined {
  return BY_DTYPE.get(dtype);
}

/** The numpy / ml_dtypes name shown for a safetensors dtype (`float4_e2m1fn` for F4). */
export function safetensorsDisplayDtype(name: string): string {
  const f = FORMAT_DTYPES.get(name);
  return f?.dtype ?? f?.displayName ?? name;
}

/** One tensor as the header describes it. */
export interface SafetensorsEntry {
  readonly name: string;
  /** The dtype as the file spells it, e.g. `BF16`. */
  readonly formatDtype: string;
  /** The tensorops dtype; undefined for the sub-byte F4 / F6_* dtypes. */
  readonly dtype: Dtype | undefined;
  readonly shape: Shape;
  /** Byte offsets relative to the start of the data (after the header). */
  readonly begin: number;
  readonly end: number;
}

export interface SafetensorsHeader {
  /** N, the JSON length, padding included. */
  readonly headerLength: number;
  /** 8 + N: where the data starts in the file. */
  readonly dataOffset: number;
  /** Tensors sorted by their data offsets. */
  readonly tensors: readonly SafetensorsEntry[];
  /** `__metadata__`, or null when the header has none. Null-prototype: keys come from the file. */
  readonly metadata: Readonly<Record<string, string>> | null;
  /** Bytes of tensor data: the end offset of the last tensor. */
  readonly dataBytes: number;
}

function fail(message: string): never {
  throw new TensorOpsError('E_FORMAT', `${WHAT}: ${message}`);
}

/**
 * N from the first 8 bytes, checked against the 100 MB limit and, with `fileSize`, against the
 * file: the length that a reader must read next. Throws E_FORMAT.
 */
export function safetensorsHeaderLength(prefix: Uint8Array, fileSize?: number): number {
  checkBytes(prefix, 'safetensorsHeaderLength', 'prefix');
  if (prefix.length < 8) {
    throw new TensorOpsError(
      'E_FORMAT',
      `not a .safetensors file: ${prefix.length} bytes, shorter than the 8-byte header length`,
    );
  }
  const view = new DataView(prefix.buffer, prefix.byteOffset, 8);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(SAFETENSORS_MAX_HEADER_BYTES)) {
    // The length is the file's first 8 bytes: it is not shown, what they look like is.
    const look = looksLike(prefix);
    throw new TensorOpsError(
      'E_FORMAT',
      `${WHAT} length exceeds the ${SAFETENSORS_MAX_HEADER_BYTES}-byte limit: not a .safetensors file${look === undefined ? '' : ` (${look})`}`,
    );
  }
  const length = Number(n);
  if (fileSize !== undefined && 8 + length > fileSize) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${WHAT} length ${length} runs past the end of the ${fileSize}-byte file`,
    );
  }
  return length;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (cause) {
    throw new TensorOpsError('E_FORMAT', `${WHAT} is not valid UTF-8`, { cause });
  }
}

function parseShape(v: JsonValue | undefined, context: string): number[] {
  if (!Array.isArray(v))
    fail(`${context}: 'shape' must be an array of integers, got ${jsonKind(v)}`);
  return (v as readonly JsonValue[]).map((d, i) =>
    jsonSafeInteger(d, `shape[${i}]`, `${WHAT}: ${context}`),
  );
}

function parseOffsets(v: JsonValue | undefined, context: string): [number, number] {
  if (!Array.isArray(v) || v.length !== 2) {
    fail(`${context}: 'data_offsets' must be [begin, end], got ${jsonKind(v)}`);
  }
  const pair = v as readonly JsonValue[];
  return [
    jsonSafeInteger(pair[0], 'data_offsets[0]', `${WHAT}: ${context}`),
    jsonSafeInteger(pair[1], 'data_offsets[1]', `${WHAT}: ${context}`),
  ];
}

const INFO_KEYS = ['dtype', 'shape', 'data_offsets'];

function parseEntry(name: string, v: JsonValue): SafetensorsEntry {
  const context = `tensor ${quote(name)}`;
  if (!isJsonObject(v)) fail(`${context} must be an object, got ${jsonKind(v)}`);
  for (const key of v.entries.keys()) {
    if (!INFO_KEYS.includes(key)) {
      fail(`${context}: unknown key ${quote(key)} (expected 'dtype', 'shape', 'data_offsets')`);
    }
  }
  for (const key of INFO_KEYS) if (!v.entries.has(key)) fail(`${context}: missing '${key}'`);
  const formatDtype = v.entries.get('dtype');
  if (typeof formatDtype !== 'string') {
    fail(`${context}: 'dtype' must be a string, got ${jsonKind(formatDtype)}`);
  }
  const known = FORMAT_DTYPES.get(formatDtype);
  if (known === undefined) {
    throw new TensorOpsError(
      'E_DTYPE',
      `${WHAT}: ${context} has unknown safetensors dtype ${quote(formatDtype)} (known: ${SAFETENSORS_DTYPES.join(', ')})`,
    );
  }
  const shape = parseShape(v.entries.get('shape'), context);
  const [begin, end] = parseOffsets(v.entries.get('data_offsets'), context);
  return { name, formatDtype, dtype: known.dtype, shape, begin, end };
}

function parseMetadata(v: JsonValue): Record<string, string> {
  if (!isJsonObject(v)) fail(`'${METADATA_KEY}' must be an object of strings, got ${jsonKind(v)}`);
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of v.entries) {
    if (typeof value !== 'string') {
      fail(`'${METADATA_KEY}' value for ${quote(key)} must be a string, got ${jsonKind(value)}`);
    }
    out[key] = value;
  }
  return out;
}

/** An entry the scan found, or undefined for an unknown dtype (the strict path words the error). */
function scannedEntry(
  name: string,
  formatDtype: string,
  shape: number[],
  begin: number,
  end: number,
): SafetensorsEntry | undefined {
  const known = FORMAT_DTYPES.get(formatDtype);
  return known && { name, formatDtype, dtype: known.dtype, shape, begin, end };
}

/**
 * The tensors (in key order) and metadata of a header text: in one pass for the usual shape
 * (safetensors-scan.ts), else by {@link safetensorsEntriesStrictly}, with the same result or error.
 */
export function safetensorsEntries(text: string): ScannedHeader<SafetensorsEntry> {
  const scanned = scanSafetensorsHeader(text, scannedEntry);
  if (scanned === undefined) return safetensorsEntriesStrictly(text);
  if ('repeatedKey' in scanned) throw duplicateKeyError(WHAT, scanned.repeatedKey, scanned.at);
  return scanned;
}

/**
 * The tensors (in key order) and metadata of a header text through the generic strict JSON tree:
 * the path for any header the one-pass scan leaves, and the one that words every error.
 */
export function safetensorsEntriesStrictly(text: string): ScannedHeader<SafetensorsEntry> {
  const doc = parseStrictJson(text, WHAT);
  if (!isJsonObject(doc)) fail(`must be a JSON object, got ${jsonKind(doc)}`);
  let metadata: Record<string, string> | null = null;
  const entries: SafetensorsEntry[] = [];
  for (const [key, value] of doc.entries) {
    if (key === METADATA_KEY) metadata = parseMetadata(value);
    else entries.push(parseEntry(key, value));
  }
  return { entries, metadata };
}

/** The most bits a tensor's data may take: 2^53-1 bytes, the largest size a JS number holds. */
const MAX_DATA_BITS = BigInt(Number.MAX_SAFE_INTEGER) * 8n;

/**
 * Bits of a tensor's data (elements x bits per element, exact), or undefined beyond
 * MAX_DATA_BITS. A zero dim empties the tensor whatever the others say; without one the product
 * only grows, so it stops at the bound: a header of a million dims costs a million small
 * multiplications, not a product a million bits long. Doubles first: a product of safe integers
 * that stays at most 2^53-1 is exact, and one that passes it rounds to 2^53 or more (rounding is
 * monotonic), so only then is it redone in exact integers.
 */
function dataBits(shape: readonly number[], bitsPerElement: number): bigint | undefined {
  let product = bitsPerElement;
  for (const d of shape) product *= d;
  if (product <= Number.MAX_SAFE_INTEGER) return BigInt(product);
  if (shape.includes(0)) return 0n;
  let bits = BigInt(bitsPerElement);
  for (const d of shape) {
    bits *= BigInt(d);
    if (bits > MAX_DATA_BITS) return undefined;
  }
  return bits;
}

/**
 * The reference's `Metadata::validate`: offsets sorted, contiguous from 0 without hole or overlap,
 * and each tensor's byte length = elements x bits / 8 exactly (in exact integers).
 */
function validateLayout(tensors: readonly SafetensorsEntry[]): number {
  let start = 0;
  for (const t of tensors) {
    // Worded only on failure: quoting every name of a large header costs more than the checks.
    const context = (): string => `tensor ${quote(t.name)}`;
    if (t.begin !== start) {
      fail(
        `${context()} data starts at ${t.begin}, expected ${start}: tensors must cover the data contiguously from 0, without holes or overlaps`,
      );
    }
    if (t.end < t.begin) fail(`${context()} data ends before it starts: [${t.begin}, ${t.end}]`);
    const bits = dataBits(t.shape, (FORMAT_DTYPES.get(t.formatDtype) as FormatDtype).bits);
    if (bits === undefined) {
      fail(
        `${context()} shape ${formatShape(t.shape)} of ${t.formatDtype} needs a number of bytes beyond 2^53-1`,
      );
    }
    if (bits % 8n !== 0n) {
      fail(
        `${context()}: shape ${formatShape(t.shape)} of ${t.formatDtype} is ${bits} bits, not a whole number of bytes`,
      );
    }
    const nbytes = Number(bits / 8n);
    if (t.end - t.begin !== nbytes) {
      fail(
        `${context()}: shape ${formatShape(t.shape)} of ${t.formatDtype} needs ${nbytes} bytes, data_offsets [${t.begin}, ${t.end}] hold ${t.end - t.begin}`,
      );
    }
    start = t.end;
  }
  return start;
}

/**
 * Parses and validates the header. `bytes` must hold at least the first 8 + N bytes of the file
 * (the data need not be present). With `fileSize`, also checks the reference's last rule: the data
 * ends exactly where the last tensor ends, no byte missing, no byte extra.
 */
export function parseSafetensorsHeader(bytes: Uint8Array, fileSize?: number): SafetensorsHeader {
  checkBytes(bytes, 'parseSafetensorsHeader');
  const headerLength = safetensorsHeaderLength(bytes, fileSize);
  if (bytes.length < 8 + headerLength) {
    fail(`truncated: needs ${8 + headerLength} bytes, only ${bytes.length} available`);
  }
  const body = bytes.subarray(8, 8 + headerLength);
  if (body[0] !== 0x7b) {
    fail("must start with '{' (a JSON object)");
  }
  const { entries: tensors, metadata } = safetensorsEntries(decodeUtf8(body));
  // The reference sorts by (begin, end) before validating; the order of the keys is free.
  tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
  const dataBytes = validateLayout(tensors);
  const dataOffset = 8 + headerLength;
  if (fileSize !== undefined) {
    const available = fileSize - dataOffset;
    if (available < dataBytes) {
      throw new TensorOpsError(
        'E_FORMAT',
        `.safetensors data truncated: the header describes ${dataBytes} bytes of tensors, only ${available} follow it`,
      );
    }
    if (available > dataBytes) {
      const extra = available - dataBytes;
      throw new TensorOpsError(
        'E_FORMAT',
        `.safetensors file has ${extra} byte${extra === 1 ? '' : 's'} after the last tensor (data ends at ${dataBytes}, file has ${available}); the format requires the data to end exactly there`,
      );
    }
  }
  return { headerLength, dataOffset, tensors, metadata, dataBytes };
}

/**
 * A header entry plus its exactly `end - begin` bytes as a tensor. F4/F6 cannot be loaded: they
 * are packed below a byte per element, which tensorops tensors do not represent.
 */
export function safetensorsEntryTensor(entry: SafetensorsEntry, data: Uint8Array): Tensor {
  checkBytes(data, 'safetensorsEntryTensor', 'data');
  if (entry.dtype === undefined) throw subByteError(entry.name, entry.formatDtype);
  if (data.byteLength !== entry.end - entry.begin) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.safetensors tensor ${quote(entry.name)} truncated: needs ${entry.end - entry.begin} bytes, got ${data.byteLength}`,
    );
  }
  return { dtype: entry.dtype, shape: [...entry.shape], data };
}

/** The error for any attempt to load, convert or gather a sub-byte tensor. */
export function subByteError(name: string, formatDtype: string): TensorOpsError {
  return new TensorOpsError(
    'E_DTYPE',
    `tensor ${quote(name)} has dtype ${formatDtype} (${safetensorsDisplayDtype(formatDtype)}), packed below one byte per element: it can be inspected, not loaded, converted or gathered`,
  );
}

export interface NamedTensor {
  readonly name: string;
  readonly tensor: Tensor;
}

export interface DecodedSafetensors {
  /** In data order. */
  readonly tensors: readonly NamedTensor[];
  readonly metadata: Readonly<Record<string, string>> | null;
}

/**
 * Decodes a whole file. The tensors' data share memory with `bytes` where it is aligned for their
 * item size, and are copied otherwise. Throws E_FORMAT / E_DTYPE (also for F4/F6 tensors: decode
 * those files with {@link parseSafetensorsHeader} and read the bytes yourself).
 */
export function decodeSafetensors(bytes: Uint8Array): DecodedSafetensors {
  checkBytes(bytes, 'decodeSafetensors');
  const header = parseSafetensorsHeader(bytes, bytes.length);
  const tensors = header.tensors.map((e) => {
    let data = bytes.subarray(header.dataOffset + e.begin, header.dataOffset + e.end);
    if (data.byteOffset % 8 !== 0) data = new Uint8Array(data);
    return { name: e.name, tensor: safetensorsEntryTensor(e, data) };
  });
  return { tensors, metadata: header.metadata };
}

/** What the writer needs of a tensor: its dtype and shape (the data may come later, in chunks). */
export interface SafetensorsWriteEntry {
  readonly name: string;
  readonly dtype: Dtype;
  readonly shape: Shape;
}

export interface SafetensorsLayout {
  /** The 8-byte length plus the padded JSON header. */
  readonly header: Uint8Array;
  /** Indices into the given entries, in the order their data must follow the header. */
  readonly order: readonly number[];
  readonly dataBytes: number;
}

/** Code-point order, which is the byte order of UTF-8 (the reference compares Rust strings). */
function compareNames(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d =
      ((x[i] as string).codePointAt(0) as number) - ((y[i] as string).codePointAt(0) as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * Plans a file: validates names and dtypes, orders the tensors as the reference writer does
 * (descending dtype rank, then name) and builds the header, padded with spaces to a multiple of 8.
 * `__metadata__` comes first, its keys in the given order.
 */
export function planSafetensors(
  entries: readonly SafetensorsWriteEntry[],
  metadata: Readonly<Record<string, string>> | null = null,
): SafetensorsLayout {
  const seen = new Set<string>();
  const formatDtypes = entries.map((e) => {
    if (e.name === METADATA_KEY) {
      throw new TensorOpsError('E_VALUE', `.safetensors cannot name a tensor '${METADATA_KEY}'`);
    }
    if (!isWellFormed(e.name)) {
      throw new TensorOpsError(
        'E_VALUE',
        `.safetensors tensor name ${quote(e.name)} is not valid Unicode`,
      );
    }
    if (seen.has(e.name)) {
      throw new TensorOpsError(
        'E_VALUE',
        `.safetensors cannot hold two tensors named ${quote(e.name)}`,
      );
    }
    seen.add(e.name);
    checkShape(e.shape, `.safetensors tensor ${quote(e.name)} shape`);
    const name = safetensorsDtypeName(e.dtype);
    if (name === undefined) {
      throw new TensorOpsError(
        'E_DTYPE',
        `.safetensors has no dtype for ${e.dtype} (tensor ${quote(e.name)}); it stores bool, int8-int64, uint8-uint64, float16, bfloat16, float32, float64, complex64 and float8 e4m3fn/e5m2/e8m0fnu/e4m3fnuz/e5m2fnuz`,
      );
    }
    return name;
  });
  const order = entries.map((_, i) => i);
  order.sort(
    (a, b) =>
      (RANK.get(formatDtypes[b] as string) as number) -
        (RANK.get(formatDtypes[a] as string) as number) ||
      compareNames(
        (entries[a] as SafetensorsWriteEntry).name,
        (entries[b] as SafetensorsWriteEntry).name,
      ),
  );
  const parts: string[] = [];
  if (metadata !== null) {
    const pairs = Object.keys(metadata).map(
      (k) => `${JSON.stringify(k)}:${JSON.stringify(metadata[k])}`,
    );
    for (const [k, v] of Object.entries(metadata)) {
      if (!isWellFormed(k) || !isWellFormed(v)) {
        throw new TensorOpsError(
          'E_VALUE',
          `.safetensors metadata ${quote(k)} is not valid Unicode`,
        );
      }
    }
    parts.push(`"${METADATA_KEY}":{${pairs.join(',')}}`);
  }
  let offset = 0;
  for (const i of order) {
    const e = entries[i] as SafetensorsWriteEntry;
    const bits = (FORMAT_DTYPES.get(formatDtypes[i] as string) as FormatDtype).bits;
    let elements = 1;
    for (const d of e.shape) elements *= d;
    const nbytes = (elements * bits) / 8;
    parts.push(
      `${JSON.stringify(e.name)}:{"dtype":"${formatDtypes[i]}","shape":[${e.shape.join(',')}],"data_offsets":[${offset},${offset + nbytes}]}`,
    );
    offset += nbytes;
  }
  const json = new TextEncoder().encode(`{${parts.join(',')}}`);
  const padded = json.length + ((8 - (json.length % 8)) % 8);
  if (padded > SAFETENSORS_MAX_HEADER_BYTES) {
    throw new TensorOpsError(
      'E_VALUE',
      `.safetensors header would be ${padded} bytes, beyond the format's ${SAFETENSORS_MAX_HEADER_BYTES}-byte limit`,
    );
  }
  const header = new Uint8Array(8 + padded);
  new DataView(header.buffer).setBigUint64(0, BigInt(padded), true);
  header.set(json, 8);
  header.fill(0x20, 8 + json.length);
  return { header, order, dataBytes: offset };
}

/** Encodes tensors (and optional `__metadata__`) as one .safetensors file. */
export function encodeSafetensors(
  tensors: readonly NamedTensor[],
  metadata: Readonly<Record<string, string>> | null = null,
): Uint8Array {
  for (const { name, tensor } of tensors) checkTensor(tensor, `tensor ${quote(name)}`);
  const layout = planSafetensors(
    tensors.map((t) => ({ name: t.name, dtype: t.tensor.dtype, shape: t.tensor.shape })),
    metadata,
  );
  const out = new Uint8Array(layout.header.length + layout.dataBytes);
  out.set(layout.header);
  let at = layout.header.length;
  for (const i of layout.order) {
    const { tensor } = tensors[i] as NamedTensor;
    out.set(tensor.data, at);
    at += tensor.data.byteLength;
  }
  return out;
}
