// .npz from a byte source, over whichever zip library the runtime uses (yauzl in Node, zip.js
// elsewhere; see ZipArchive). What a zip library leaves to its caller is done here, once, so that
// an archive reads the same, with the same errors, from a path and from a Blob or URL: only stored
// and deflate members, only NAME.npy members, no duplicates, CRC-32 verified, sizes checked before
// allocating, and inflate bounded by the declared size.

import { type Dtype, dtypeSize, type Tensor, TensorOpsError } from '@tensorops/core';
import { decodeNpy, MAX_NPY_HEADER_BYTES, npyDataOffset, readNpyHeader } from '../npy.js';
import { checkDeflateRatio, npzTensorName } from '../npz.js';
import { quote } from '../text.js';
import { type ByteSource, readExactly } from './source.js';
import {
  chunkedRange,
  type FormatReader,
  type NotATensor,
  rangeReadable,
  STREAM_CHUNK_BYTES,
  type StoredTensor,
  swapUnitOf,
} from './stored.js';

const STORED = 0;
const DEFLATE = 8;
/** Enough for any .npy header tensorops reads (the dict limit + the 12-byte preamble). */
const MAX_NPY_HEAD = MAX_NPY_HEADER_BYTES + 12;

/** A zip member as its central directory describes it. */
export interface ZipMember {
  /** The name as the zip stores it, decoded as Python's zipfile does (UTF-8 flag, else CP437). */
  readonly fileName: string;
  readonly compressionMethod: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly crc32: number;
  readonly encrypted: boolean;
}

/** What a zip library gives the .npz reader. */
export interface ZipArchive<M extends ZipMember> {
  /** The members in central directory order. */
  readonly members: readonly M[];
  /** Absolute offset of a member's data, after its local header. */
  dataStart(m: M): Promise<number>;
  /**
   * The inflated bytes of a deflate member, piece by piece as they are produced; leaving the loop
   * early stops the inflate. Pieces past the declared size may fail or be produced: the caller
   * bounds them.
   */
  inflate(m: M): AsyncIterable<Uint8Array>;
  /** CRC-32 of `data` continuing from `crc` (0 to start). */
  crc32(data: Uint8Array, crc: number): number;
}

export function zipError(cause: unknown, what = '.npz'): TensorOpsError {
  if (cause instanceof TensorOpsError) return cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  return new TensorOpsError('E_FORMAT', `${what}: ${message.split('\n', 1)[0]}`, { cause });
}

export function beyondDeclared(m: ZipMember): TensorOpsError {
  return new TensorOpsError(
    'E_FORMAT',
    `.npz member ${quote(m.fileName)} inflates beyond its declared ${m.uncompressedSize} bytes; stopped (corrupt or a zip bomb)`,
  );
}

interface Member<M extends ZipMember> {
  readonly zip: M;
  readonly name: string;
  readonly dataStart: number;
}

/**
 * Inflates a member into a buffer that grows with the bytes actually produced (never to more than
 * the declared size), checking the CRC. `limit` stops early (for reading just the .npy header).
 */
async function inflateMember<M extends ZipMember>(
  archive: ZipArchive<M>,
  m: M,
  limit?: number,
): Promise<Uint8Array> {
  const size = m.uncompressedSize;
  const want = Math.min(limit ?? size, size);
  // Start small: what the compressed bytes can honestly justify; grow by doubling as data arrives.
  let buffer = new Uint8Array(Math.min(want, m.compressedSize * 4 + (1 << 20)));
  let at = 0;
  let crc = 0;
  try {
    for await (const piece of archive.inflate(m)) {
      if (at + piece.byteLength > size) throw beyondDeclared(m);
      if (at + piece.byteLength > buffer.length && at < want) {
        const grown = new Uint8Array(
          Math.min(want, Math.max(buffer.length * 2, at + piece.byteLength)),
        );
        grown.set(buffer.subarray(0, at));
        buffer = grown;
      }
      const take = Math.min(piece.byteLength, Math.max(0, want - at));
      buffer.set(piece.subarray(0, take), at);
      crc = archive.crc32(piece, crc);
      at += piece.byteLength;
      if (limit !== undefined && at >= want) return buffer.subarray(0, want);
    }
  } catch (cause) {
    throw zipError(cause, `.npz member ${quote(m.fileName)} (deflate data)`);
  }
  if (at !== size) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(m.fileName)} truncated: inflates to ${at} bytes, declares ${size}`,
    );
  }
  checkCrc(m, crc);
  return buffer.subarray(0, at);
}

function checkCrc(m: ZipMember, crc: number): void {
  if (crc >>> 0 !== m.crc32 >>> 0) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(m.fileName)} CRC-32 mismatch: data gives ${hex(crc)}, the zip directory says ${hex(m.crc32)}`,
    );
  }
}

function hex(n: number): string {
  return `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
}

async function memberBytes<M extends ZipMember>(
  source: ByteSource,
  archive: ZipArchive<M>,
  m: Member<M>,
  limit?: number,
): Promise<Uint8Array> {
  if (m.zip.compressionMethod === DEFLATE) return inflateMember(archive, m.zip, limit);
  const size = m.zip.uncompressedSize;
  const length = Math.min(limit ?? size, size);
  const bytes = await readExactly(
    source,
    m.dataStart,
    length,
    `.npz member ${quote(m.zip.fileName)}`,
  );
  if (length === size) checkCrc(m.zip, archive.crc32(bytes, 0));
  return bytes;
}

/** The .npy header of a member, reading (or inflating) only as far as the header goes. */
async function memberHeader<M extends ZipMember>(
  source: ByteSource,
  archive: ZipArchive<M>,
  m: Member<M>,
) {
  const what = `.npz member ${quote(m.zip.fileName)}`;
  try {
    const prefix = await memberBytes(source, archive, m, 12);
    const dataOffset = npyDataOffset(prefix);
    const head =
      dataOffset <= prefix.length
        ? prefix
        : await memberBytes(source, archive, m, Math.min(dataOffset, MAX_NPY_HEAD));
    return readNpyHeader(head, Math.max(0, m.zip.uncompressedSize - dataOffset));
  } catch (cause) {
    if (cause instanceof TensorOpsError && !cause.message.startsWith('.npz')) {
      throw new TensorOpsError(cause.code, `${what}: ${cause.message}`, { cause });
    }
    throw cause;
  }
}

function checkEntry(m: ZipMember): void {
  const name = quote(m.fileName);
  if (m.encrypted) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${name} is encrypted; tensorops reads plain archives`,
    );
  }
  if (m.compressionMethod !== STORED && m.compressionMethod !== DEFLATE) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${name} uses compression method ${m.compressionMethod}; only stored (0) and deflate (8) are read, as numpy writes`,
    );
  }
  if (m.compressionMethod === DEFLATE) {
    checkDeflateRatio(m.fileName, m.compressedSize, m.uncompressedSize);
  }
}

/** Throws unless the member holds exactly its .npy header and data (as numpy writes it). */
function checkMemberSize(m: ZipMember, dataOffset: number, nbytes: number): void {
  const extra = m.uncompressedSize - dataOffset - nbytes;
  if (extra > 0) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(m.fileName)} holds ${extra} bytes after the ${nbytes} bytes of data its .npy header declares; refused (corrupt, or a zip bomb)`,
    );
  }
}

/** Reads each member's .npy header (the directory is the archive's): everything but the data. */
export async function npzReaderOf<M extends ZipMember>(
  source: ByteSource,
  archive: ZipArchive<M>,
): Promise<FormatReader> {
  const members = new Map<StoredTensor, Member<M>>();
  const names = new Set<string>();
  const tensors: StoredTensor[] = [];
  const notTensors: NotATensor[] = [];
  try {
    for (const zip of archive.members) {
      const isNpy = zip.fileName.endsWith('.npy') && zip.fileName.length > 4;
      const name = isNpy ? zip.fileName.slice(0, -4) : zip.fileName;
      if (names.has(name)) {
        throw new TensorOpsError('E_FORMAT', `.npz has a duplicate member ${quote(zip.fileName)}`);
      }
      names.add(name);
      try {
        checkEntry(zip);
        npzTensorName(zip.fileName);
        const dataStart = await archive.dataStart(zip);
        const member: Member<M> = { zip, name, dataStart };
        const header = await memberHeader(source, archive, member);
        checkMemberSize(zip, header.dataOffset, header.nbytes);
        const deflated = zip.compressionMethod === DEFLATE;
        const stored: StoredTensor = {
          name,
          dtype: header.dtype,
          displayDtype: header.dtype,
          formatDtype: header.descr,
          shape: header.shape,
          nbytes: header.nbytes,
          offset: deflated ? null : dataStart + header.dataOffset,
          fortranOrder: header.fortranOrder,
          byteOrder: header.byteOrder,
          compression: deflated ? 'deflate' : 'stored',
          compressedBytes: zip.compressedSize,
        };
        members.set(stored, member);
        tensors.push(stored);
      } catch (cause) {
        // One member that is not a tensor leaves the others readable, as np.load does.
        if (!(cause instanceof TensorOpsError)) throw cause;
        notTensors.push({ name, kind: isNpy ? 'unreadable' : 'other', error: cause });
      }
    }
  } catch (cause) {
    throw zipError(cause);
  }
  return {
    format: 'npz',
    tensors,
    notTensors,
    metadata: null,
    // Plain ranged streams would skip the CRC; stored members stream through `chunks` below,
    // which checks it on the way (the atomic writer drops the output if it fails at the end).
    rangedStreams: false,
    chunks(t, dtype, reuse) {
      const member = members.get(t);
      if (member === undefined || !rangeReadable(t)) return undefined;
      return storedMemberChunks(source, archive, member, t, dtype, reuse);
    },
    async read(t): Promise<Tensor> {
      const member = members.get(t);
      if (member === undefined)
        throw new TensorOpsError(
          'E_TENSOR_NOT_FOUND',
          `.npz has no member for ${quote(t.name ?? '')}`,
        );
      const bytes = await memberBytes(source, archive, member);
      try {
        return decodeNpy(bytes);
      } catch (cause) {
        throw zipError(cause);
      }
    },
    // The archive holds nothing of its own to release: the source belongs to its owner.
    async close() {},
  };
}

/**
 * A stored member's tensor data in bounded chunks, with the CRC-32 of the whole member (header,
 * data, any trailing bytes) computed on the way and checked after the last chunk.
 */
async function* storedMemberChunks<M extends ZipMember>(
  source: ByteSource,
  archive: ZipArchive<M>,
  m: Member<M>,
  t: StoredTensor,
  dtype: Dtype,
  reuse: boolean,
): AsyncIterable<Uint8Array> {
  const what = `.npz member ${quote(m.zip.fileName)}`;
  const dataAt = (t.offset as number) - m.dataStart;
  let crc = archive.crc32(await readExactly(source, m.dataStart, dataAt, what), 0);
  const visit = (raw: Uint8Array): void => {
    crc = archive.crc32(raw, crc);
  };
  const item = Math.max(1, dtypeSize(dtype));
  const chunkBytes = Math.max(item, Math.floor(STREAM_CHUNK_BYTES / item) * item);
  yield* chunkedRange(
    source,
    t.offset as number,
    t.nbytes,
    chunkBytes,
    reuse,
    what,
    visit,
    swapUnitOf(t, dtype),
  );
  const tail = m.zip.uncompressedSize - dataAt - t.nbytes;
  for await (const _ of chunkedRange(
    source,
    (t.offset as number) + t.nbytes,
    tail,
    STREAM_CHUNK_BYTES,
    true,
    what,
    visit,
  )) {
    // trailing bytes only feed the CRC
  }
  checkCrc(m.zip, crc);
}
