// The GGUF header: magic, version, counts, the metadata, the tensor infos, then padding to the
// alignment, then the data. Pure and strict, and linear in the header's bytes: every count and
// length is bounded by the bytes the file has left before anything is allocated, arrays nest at
// most GGUF_MAX_ARRAY_NESTING deep, names and keys are unique, and every tensor's data is
// aligned, inside the file and apart from every other's.

import { TensorOpsError } from '@tensorops/core';
import { quote } from '../text.js';
import { GgufCursor } from './cursor.js';
import { type GgmlType, ggmlType } from './ggml-types.js';
import { type GgufEntry, readEntry } from './metadata.js';

/** ggml's GGML_MAX_DIMS: llama.cpp refuses tensors of more dimensions. */
export const GGUF_MAX_DIMS = 4;

/** gguf-py's GGUF_DEFAULT_ALIGNMENT, used when `general.alignment` is absent. */
const DEFAULT_ALIGNMENT = 32;

const MAGIC = 0x46554747; // "GGUF" read as a little-endian u32

export interface GgufTensorInfo {
  readonly name: string;
  /** ggml's `ne`: the innermost dimension first (numpy's shape reversed). */
  readonly ne: readonly number[];
  readonly type: GgmlType;
  /** Absolute file offset of the first data byte. */
  readonly offset: number;
  readonly nbytes: number;
}

export interface GgufHeader {
  readonly version: number;
  readonly alignment: number;
  readonly metadata: readonly GgufEntry[];
  /** In header order. */
  readonly tensors: readonly GgufTensorInfo[];
  /** Absolute offset of the data section (the end of the header, aligned). */
  readonly dataOffset: number;
  /** One past the last data byte of any tensor (dataOffset when there are none). */
  readonly dataEnd: number;
}

function formatError(message: string): TensorOpsError {
  return new TensorOpsError('E_FORMAT', `GGUF ${message}`);
}

function readPreamble(cursor: GgufCursor): number {
  if (cursor.u32('magic') !== MAGIC) throw formatError('magic is not "GGUF"');
  const version = cursor.u32('version');
  if (version === 2 || version === 3) return version;
  // A big-endian file (gguf-py's --big-endian) has its version byte-swapped.
  const swapped =
    (version >>> 24) | ((version >>> 8) & 0xff00) | ((version & 0xff00) << 8) | (version << 24);
  if (swapped === 2 || swapped === 3) {
    throw formatError(
      `file is big-endian (version ${swapped}): only little-endian GGUF files can be read`,
    );
  }
  throw formatError(`version ${version} is not supported (2 and 3 are)`);
}

/** The alignment `general.alignment` gives (a uint32 power of two), else the default. */
function alignmentOf(metadata: readonly GgufEntry[]): number {
  const entry = metadata.find((e) => e.key === 'general.alignment');
  if (entry === undefined) return DEFAULT_ALIGNMENT;
  const value = entry.value;
  if (
    entry.type !== 'uint32' ||
    typeof value !== 'number' ||
    value === 0 ||
    (value & (value - 1)) !== 0
  ) {
    throw formatError('general.alignment is not a uint32 power of two');
  }
  return value;
}

function readTensorInfo(
  cursor: GgufCursor,
  index: number,
): Omit<GgufTensorInfo, 'offset'> & {
  readonly relative: number;
} {
  const name = cursor.string(`tensor name ${index}`);
  const what = `tensor ${quote(name)}`;
  const at = cursor.position;
  const nDims = cursor.u32(`${what} dimension count`);
  if (nDims > GGUF_MAX_DIMS) {
    throw formatError(
      `${what} at offset ${at} has ${nDims} dimensions, more than ggml's ${GGUF_MAX_DIMS}`,
    );
  }
  const ne: number[] = [];
  let elements = 1;
  for (let d = 0; d < nDims; d++) {
    const n = cursor.size(`${what} dimension ${d}`, cursor.fileSize, 'larger than the file');
    elements *= n;
    ne.push(n);
  }
  const typeAt = cursor.position;
  const typeId = cursor.u32(`${what} type`);
  const type = ggmlType(typeId);
  if (type === undefined) {
    throw new TensorOpsError(
      'E_DTYPE',
      `GGUF ${what} at offset ${typeAt} has ggml type ${typeId}, which ggml does not define`,
    );
  }
  const nbytes = (elements / type.blockSize) * type.typeSize;
  // The product is exact while it stays a safe integer; a tensor larger than the file is refused
  // here, before its offset is even read.
  if (elements > Number.MAX_SAFE_INTEGER || nbytes > cursor.fileSize) {
    throw formatError(`${what} of dimensions [${ne.join(', ')}] is larger than the file`);
  }
  const rowLength = ne[0] ?? 1;
  if (rowLength % type.blockSize !== 0) {
    throw formatError(
      `${what} of type ${type.name} has rows of ${rowLength} elements, not a multiple of its blocks of ${type.blockSize}`,
    );
  }
  const relative = cursor.size(`${what} offset`, cursor.fileSize, 'past the end of the file');
  return { name, ne, type, nbytes, relative };
}

/**
 * Parses the header from `bytes`, the first bytes of a file of `fileSize` bytes. Throws
 * MoreBytesNeeded when the header runs past `bytes` (read further and call again), E_FORMAT for
 * anything malformed, E_DTYPE for a tensor type ggml does not define.
 */
export function parseGgufHeader(bytes: Uint8Array, fileSize: number): GgufHeader {
  const cursor = new GgufCursor(bytes, fileSize);
  const version = readPreamble(cursor);
  const tensorCount = cursor.size(
    'tensor count',
    Math.floor(cursor.left / 24),
    'more tensor infos than the file can hold',
  );
  const entryCount = cursor.size(
    'metadata count',
    Math.floor(cursor.left / 13),
    'more metadata entries than the file can hold',
  );
  const metadata = readUnique(
    entryCount,
    (i) => readEntry(cursor, i),
    (e) => e.key,
    'metadata key',
  );
  const infos = readUnique(
    tensorCount,
    (i) => readTensorInfo(cursor, i),
    (t) => t.name,
    'tensor name',
  );
  const alignment = alignmentOf(metadata);
  const dataOffset = Math.ceil(cursor.position / alignment) * alignment;
  const tensors = infos.map(({ relative, ...info }) => {
    const what = `tensor ${quote(info.name)}`;
    if (relative % alignment !== 0) {
      throw formatError(
        `${what} offset ${relative} is not a multiple of the alignment ${alignment}`,
      );
    }
    const offset = dataOffset + relative;
    if (offset + info.nbytes > fileSize) {
      throw formatError(
        `${what} data (${info.nbytes} bytes at offset ${offset}) runs past the end of the file (${fileSize} bytes)`,
      );
    }
    return { ...info, offset };
  });
  return {
    version,
    alignment,
    metadata,
    tensors,
    dataOffset,
    dataEnd: checkApart(tensors, dataOffset),
  };
}

/** `count` items read in order, refusing a name (`what`) given twice. */
function readUnique<T>(
  count: number,
  read: (index: number) => T,
  nameOf: (item: T) => string,
  what: string,
): T[] {
  const items: T[] = [];
  const names = new Set<string>();
  for (let i = 0; i < count; i++) {
    const item = read(i);
    const name = nameOf(item);
    if (names.has(name)) throw formatError(`${what} ${quote(name)} is given twice`);
    names.add(name);
    items.push(item);
  }
  return items;
}

/** Refuses overlapping tensor data; returns the end of the last tensor's data. */
function checkApart(tensors: readonly GgufTensorInfo[], dataOffset: number): number {
  const byOffset = [...tensors].sort((a, b) => a.offset - b.offset);
  let end = dataOffset;
  let previous: GgufTensorInfo | undefined;
  for (const t of byOffset) {
    if (t.nbytes === 0) continue;
    if (previous !== undefined && t.offset < end) {
      throw formatError(
        `tensors ${quote(previous.name)} and ${quote(t.name)} overlap (offsets ${previous.offset} and ${t.offset})`,
      );
    }
    if (t.offset + t.nbytes >= end) {
      end = t.offset + t.nbytes;
      previous = t;
    }
  }
  return end;
}
