// .npz through yauzl (reading: central directory, zip64, local headers, inflate) and yazl
// (writing). What a zip library leaves to its caller is done here: only stored and deflate
// members, only NAME.npy members, no duplicates, CRC-32 verified, sizes checked before
// allocating, and inflate bounded by the declared size. Both libraries load on first use, so
// commands that never touch an .npz do not pay for them.

import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { type Dtype, dtypeSize, type Tensor, TensorOpsError } from '@tensorops/core';
import type { Entry, ZipFile } from 'yauzl';
import {
  decodeNpy,
  encodeNpyHeader,
  MAX_NPY_HEADER_BYTES,
  npyDataOffset,
  readNpyHeader,
} from '../npy.js';
import { checkDeflateRatio, npzMemberName, npzTensorName } from '../npz.js';
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
import { checkedChunks, type TensorStream } from './tensor-stream.js';

const STORED = 0;
const DEFLATE = 8;
/** Enough for any .npy header tensorops reads (the dict limit + the 12-byte preamble). */
const MAX_NPY_HEAD = MAX_NPY_HEADER_BYTES + 12;

interface Member {
  readonly entry: Entry;
  readonly name: string;
  /** Absolute offset of the member's data (after its local header). */
  readonly dataStart: number;
}

function zipError(cause: unknown, what = '.npz'): TensorOpsError {
  if (cause instanceof TensorOpsError) return cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  return new TensorOpsError('E_FORMAT', `${what}: ${message.split('\n', 1)[0]}`, { cause });
}

// CommonJS modules: under Node's ESM loader and inside a bundle the functions are reliably on
// the default export (module.exports), not always as named exports.
async function loadYauzl(): Promise<typeof import('yauzl')> {
  const mod = await import('yauzl');
  return (mod.default ?? mod) as typeof mod;
}

async function openZip(source: ByteSource): Promise<ZipFile> {
  const yauzl = await loadYauzl();
  const options = {
    lazyEntries: true,
    autoClose: false,
    // Names are decoded by memberName below.
    decodeStrings: false,
    validateEntrySizes: true,
  };
  try {
    if (source.fd !== undefined) return await yauzl.fromFdPromise(source.fd, options);
    if (source.bytes === undefined) {
      return await yauzl.fromRandomAccessReaderPromise(
        sourceReader(yauzl, source),
        source.size,
        options,
      );
    }
    const bytes = source.bytes;
    return await yauzl.fromBufferPromise(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      options,
    );
  } catch (cause) {
    throw zipError(cause, 'not a readable .npz (zip) file');
  }
}

/** A source that is neither a file nor a buffer (a URL), as yauzl's random-access reader. */
function sourceReader(
  yauzl: typeof import('yauzl'),
  source: ByteSource,
): InstanceType<typeof yauzl.RandomAccessReader> {
  class SourceReader extends yauzl.RandomAccessReader {
    override _readStreamForRange(start: number, end: number): Readable {
      return Readable.from(
        (async function* () {
          yield Buffer.from((await readExactly(source, start, end - start, '.npz')).buffer);
        })(),
      );
    }
  }
  return new SourceReader();
}

/**
 * Inflates a member into a buffer that grows with the bytes actually produced (never to more than
 * the declared size), checking the CRC. `limit` stops early (for reading just the .npy header).
 */
async function inflateMember(zip: ZipFile, m: Member, limit?: number): Promise<Uint8Array> {
  const { entry } = m;
  const size = entry.uncompressedSize;
  const want = Math.min(limit ?? size, size);
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch (cause) {
    throw zipError(cause, `.npz member ${quote(entry.fileName)}`);
  }
  // Start small: what the compressed bytes can honestly justify; grow by doubling as data arrives.
  let buffer = new Uint8Array(Math.min(want, entry.compressedSize * 4 + (1 << 20)));
  let at = 0;
  let crc = 0;
  try {
    for await (const piece of stream as AsyncIterable<Uint8Array>) {
      if (at + piece.byteLength > size) throw beyondDeclared(entry);
      if (at + piece.byteLength > buffer.length && at < want) {
        const grown = new Uint8Array(
          Math.min(want, Math.max(buffer.length * 2, at + piece.byteLength)),
        );
        grown.set(buffer.subarray(0, at));
        buffer = grown;
      }
      const take = Math.min(piece.byteLength, Math.max(0, want - at));
      buffer.set(piece.subarray(0, take), at);
      crc = crc32(piece, crc);
      at += piece.byteLength;
      if (limit !== undefined && at >= want) {
        stream.destroy();
        return buffer.subarray(0, want);
      }
    }
  } catch (cause) {
    stream.destroy();
    const message = cause instanceof Error ? cause.message : '';
    if (message.startsWith('too many bytes')) throw beyondDeclared(entry);
    throw zipError(cause, `.npz member ${quote(entry.fileName)} (deflate data)`);
  }
  if (at !== size) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(entry.fileName)} truncated: inflates to ${at} bytes, declares ${size}`,
    );
  }
  checkCrc(entry, crc);
  return buffer.subarray(0, at);
}

function beyondDeclared(entry: Entry): TensorOpsError {
  return new TensorOpsError(
    'E_FORMAT',
    `.npz member ${quote(entry.fileName)} inflates beyond its declared ${entry.uncompressedSize} bytes; stopped (corrupt or a zip bomb)`,
  );
}

function checkCrc(entry: Entry, crc: number): void {
  if (crc >>> 0 !== entry.crc32 >>> 0) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(entry.fileName)} CRC-32 mismatch: data gives ${hex(crc)}, the zip directory says ${hex(entry.crc32)}`,
    );
  }
}

function hex(n: number): string {
  return `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
}

async function memberBytes(
  source: ByteSource,
  zip: ZipFile,
  m: Member,
  limit?: number,
): Promise<Uint8Array> {
  if (m.entry.compressionMethod === DEFLATE) return inflateMember(zip, m, limit);
  const size = m.entry.uncompressedSize;
  const length = Math.min(limit ?? size, size);
  const bytes = await readExactly(
    source,
    m.dataStart,
    length,
    `.npz member ${quote(m.entry.fileName)}`,
  );
  if (length === size) checkCrc(m.entry, crc32(bytes));
  return bytes;
}

/** The .npy header of a member, reading (or inflating) only as far as the header goes. */
async function memberHeader(source: ByteSource, zip: ZipFile, m: Member) {
  const what = `.npz member ${quote(m.entry.fileName)}`;
  try {
    const prefix = await memberBytes(source, zip, m, 12);
    const dataOffset = npyDataOffset(prefix);
    const head =
      dataOffset <= prefix.length
        ? prefix
        : await memberBytes(source, zip, m, Math.min(dataOffset, MAX_NPY_HEAD));
    return readNpyHeader(head, Math.max(0, m.entry.uncompressedSize - dataOffset));
  } catch (cause) {
    if (cause instanceof TensorOpsError && !cause.message.startsWith('.npz')) {
      throw new TensorOpsError(cause.code, `${what}: ${cause.message}`, { cause });
    }
    throw cause;
  }
}

function checkEntry(entry: Entry): void {
  const name = quote(entry.fileName);
  if (entry.isEncrypted()) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${name} is encrypted; tensorops reads plain archives`,
    );
  }
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATE) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${name} uses compression method ${entry.compressionMethod}; only stored (0) and deflate (8) are read, as numpy writes`,
    );
  }
  if (entry.compressionMethod === DEFLATE) {
    checkDeflateRatio(entry.fileName, entry.compressedSize, entry.uncompressedSize);
  }
}

/**
 * The member's name as the zip stores it. yauzl's own decoding would refuse names such as `x:0.npy`
 * ("absolute path") or `a\\b.npy`, and rewrite backslashes: harmless here, since nothing is
 * extracted to disk, and numpy reads them. So names are decoded as Python's zipfile does (UTF-8
 * when the entry says so, else CP437), backslashes kept.
 */
function memberName(yauzl: typeof import('yauzl'), entry: Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, true);
}

/** Throws unless the member holds exactly its .npy header and data (as numpy writes it). */
function checkMemberSize(entry: Entry, dataOffset: number, nbytes: number): void {
  const extra = entry.uncompressedSize - dataOffset - nbytes;
  if (extra > 0) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(entry.fileName)} holds ${extra} bytes after the ${nbytes} bytes of data its .npy header declares; refused (corrupt, or a zip bomb)`,
    );
  }
}

/** Reads the central directory and each member's .npy header: everything but the data. */
export async function npzReader(source: ByteSource): Promise<FormatReader> {
  const zip = await openZip(source);
  const yauzl = await loadYauzl();
  {
    const members = new Map<StoredTensor, Member>();
    const names = new Set<string>();
    const tensors: StoredTensor[] = [];
    const notTensors: NotATensor[] = [];
    try {
      for await (const entry of zip.eachEntry()) {
        entry.fileName = memberName(yauzl, entry);
        const isNpy = entry.fileName.endsWith('.npy') && entry.fileName.length > 4;
        const name = isNpy ? entry.fileName.slice(0, -4) : entry.fileName;
        if (names.has(name)) {
          throw new TensorOpsError(
            'E_FORMAT',
            `.npz has a duplicate member ${quote(entry.fileName)}`,
          );
        }
        names.add(name);
        try {
          checkEntry(entry);
          npzTensorName(entry.fileName);
          const { fileDataStart } = await zip.readLocalFileHeaderPromise(entry, {
            minimal: true,
          });
          const member: Member = { entry, name, dataStart: fileDataStart };
          const header = await memberHeader(source, zip, member);
          checkMemberSize(entry, header.dataOffset, header.nbytes);
          const deflated = entry.compressionMethod === DEFLATE;
          const stored: StoredTensor = {
            name,
            dtype: header.dtype,
            displayDtype: header.dtype,
            formatDtype: header.descr,
            shape: header.shape,
            nbytes: header.nbytes,
            offset: deflated ? null : fileDataStart + header.dataOffset,
            fortranOrder: header.fortranOrder,
            byteOrder: header.byteOrder,
            compression: deflated ? 'deflate' : 'stored',
            compressedBytes: entry.compressedSize,
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
        return storedMemberChunks(source, member, t, dtype, reuse);
      },
      async read(t): Promise<Tensor> {
        const member = members.get(t);
        if (member === undefined)
          throw new TensorOpsError(
            'E_TENSOR_NOT_FOUND',
            `.npz has no member for ${quote(t.name ?? '')}`,
          );
        const bytes = await memberBytes(source, zip, member);
        try {
          return decodeNpy(bytes);
        } catch (cause) {
          throw zipError(cause);
        }
      },
      // Not zip.close(): for a file, yauzl would close the descriptor, which belongs to the
      // source (closed by its owner); for a buffer there is nothing to release.
      async close() {},
    };
  }
}

/**
 * A stored member's tensor data in bounded chunks, with the CRC-32 of the whole member (header,
 * data, any trailing bytes) computed on the way and checked after the last chunk.
 */
async function* storedMemberChunks(
  source: ByteSource,
  m: Member,
  t: StoredTensor,
  dtype: Dtype,
  reuse: boolean,
): AsyncIterable<Uint8Array> {
  const what = `.npz member ${quote(m.entry.fileName)}`;
  const dataAt = (t.offset as number) - m.dataStart;
  let crc = crc32(await readExactly(source, m.dataStart, dataAt, what));
  const visit = (raw: Uint8Array): void => {
    crc = crc32(raw, crc);
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
  const tail = m.entry.uncompressedSize - dataAt - t.nbytes;
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
  checkCrc(m.entry, crc);
}

export interface NpzWriteEntry {
  readonly name: string;
  readonly data: TensorStream;
}

export interface NpzWriteOptions {
  /** Deflate the members (np.savez_compressed); default stored, like np.savez. */
  readonly compress?: boolean;
}

// A fixed date (the one np.savez leaves in its members), so the same tensors give the same bytes.
const EPOCH = new Date(1980, 0, 1, 0, 0, 0);

/**
 * The bytes of an .npz holding `entries` (names and dtypes already validated by the caller).
 * Each member is pulled from its stream only when yazl reaches it, so one member is in flight at
 * a time; yazl switches to zip64 by itself when sizes need it.
 */
export async function npzChunks(
  entries: readonly NpzWriteEntry[],
  options: NpzWriteOptions = {},
): Promise<AsyncIterable<Uint8Array>> {
  const mod = await import('yazl');
  const yazl = (mod.default ?? mod) as typeof mod;
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as unknown as Readable;
  // yazl reports a failing member stream on the ZipFile, not on its output: forward it, or the
  // writer would wait forever.
  zip.on('error', (error: unknown) => output.destroy(error as Error));
  for (const { name, data } of entries) {
    const header = encodeNpyHeader(data);
    const member = npzMemberName(name);
    zip.addReadStreamLazy(
      member,
      {
        compress: options.compress === true,
        size: header.length + data.nbytes,
        mtime: EPOCH,
        forceDosTimestamp: true,
      },
      (callback) => {
        const memberStream = Readable.from(
          (async function* () {
            yield header;
            yield* checkedChunks(data, `.npz member ${quote(member)}`);
          })(),
          // Byte mode: an object-mode stream would queue 16 whole chunks ahead of yazl.
          { objectMode: false, highWaterMark: 1 << 16 },
        );
        // yazl pipes a lazy member stream without listening for its errors: a failing input
        // (a CRC mismatch, a truncated file) must end the archive, not crash the process.
        memberStream.on('error', (error) => output.destroy(error));
        callback(null, memberStream);
      },
    );
  }
  zip.end();
  return output as AsyncIterable<Uint8Array>;
}
