// A zip archive's central directory, read through any byte source, for archives whose members are
// read by byte ranges in place (torch checkpoints): each member's name, method, sizes and the
// offset of its local header, zip64 included. The .npz readers use yauzl / zip.js, which also
// inflate; this reader inflates nothing, loads no library (the CLI's start-up script stays small)
// and is strict: every size and offset must lie within the source, checked before any allocation,
// and the directory costs one read (two for zip64) plus the tail that finds it.

import { TensorOpsError } from '@tensorops/core';
import { quote } from '../text.js';
import { canReadMany, readsInPlace } from './capabilities.js';
import { type ByteSource, readExactly } from './source.js';

export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflate, ... */
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localHeaderOffset: number;
  readonly encrypted: boolean;
}

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_BYTES = 22;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const ZIP64_EOCD_BYTES = 56;
const CENTRAL_SIGNATURE = 0x02014b50;
const CENTRAL_BYTES = 46;
const LOCAL_SIGNATURE = 0x04034b50;
const LOCAL_BYTES = 30;
const ZIP64_EXTRA_ID = 0x0001;
/** The end record and the longest comment it may carry. */
const TAIL_BYTES = EOCD_BYTES + 0xffff;

function fail(message: string): never {
  throw new TensorOpsError('E_FORMAT', `zip: ${message}`);
}

function u64(view: DataView, at: number): number {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    fail(`a 64-bit size or offset ${value} is too large`);
  return Number(value);
}

/** Where the central directory is and how many entries it declares. */
interface Directory {
  readonly offset: number;
  readonly size: number;
  readonly entries: number;
  /** The end of the source, read to find the end record, and where it starts. */
  readonly tail: Uint8Array;
  readonly tailStart: number;
}

async function findDirectory(source: ByteSource): Promise<Directory> {
  const tailLength = Math.min(source.size, TAIL_BYTES + ZIP64_LOCATOR_BYTES);
  const tailStart = source.size - tailLength;
  const tail = await readExactly(source, tailStart, tailLength, 'zip end record');
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let at = -1;
  // The last signature whose comment length reaches exactly the end of the source.
  for (let i = tail.length - EOCD_BYTES; i >= 0; i--) {
    if (
      view.getUint32(i, true) === EOCD_SIGNATURE &&
      i + EOCD_BYTES + view.getUint16(i + 20, true) === tail.length
    ) {
      at = i;
      break;
    }
  }
  if (at < 0) fail('no end of central directory record (not a zip archive, or truncated)');
  let entries: number = view.getUint16(at + 10, true);
  let size: number = view.getUint32(at + 12, true);
  let offset: number = view.getUint32(at + 16, true);
  const locator = at - ZIP64_LOCATOR_BYTES;
  if (locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR_SIGNATURE) {
    const recordAt = u64(view, locator + 8);
    if (recordAt + ZIP64_EOCD_BYTES > source.size) fail('the zip64 end record lies past the end');
    const record = await readExactly(source, recordAt, ZIP64_EOCD_BYTES, 'zip64 end record');
    const r = new DataView(record.buffer);
    if (r.getUint32(0, true) !== ZIP64_EOCD_SIGNATURE)
      fail('no zip64 end record where its locator points');
    entries = u64(r, 32);
    size = u64(r, 40);
    offset = u64(r, 48);
  }
  if (offset + size > source.size) {
    fail(
      `the central directory (${size} bytes at ${offset}) lies past the end of the ${source.size}-byte file`,
    );
  }
  if (entries * CENTRAL_BYTES > size)
    fail(`${entries} entries cannot fit in a ${size}-byte central directory`);
  return { offset, size, entries, tail, tailStart };
}

/** The zip64 extended values of an entry, in the order the spec gives them (only those saturated). */
function zip64Values(view: DataView, at: number, length: number, wanted: number): number[] {
  const values: number[] = [];
  for (let p = at; p + 4 <= at + length; ) {
    const id = view.getUint16(p, true);
    const size = view.getUint16(p + 2, true);
    if (p + 4 + size > at + length) fail('an extra field runs past its entry');
    if (id === ZIP64_EXTRA_ID) {
      if (size < wanted * 8) fail('a zip64 extra field is shorter than its entry needs');
      for (let k = 0; k < wanted; k++) values.push(u64(view, p + 4 + 8 * k));
      return values;
    }
    p += 4 + size;
  }
  if (wanted > 0) fail('an entry needs a zip64 extra field and has none');
  return values;
}

/** Every entry of the central directory, in its order; names decoded as UTF-8. */
export async function readZipDirectory(source: ByteSource): Promise<ZipEntry[]> {
  const dir = await findDirectory(source);
  // A small archive's directory is within the tail already read.
  const bytes =
    dir.offset >= dir.tailStart
      ? dir.tail.subarray(dir.offset - dir.tailStart, dir.offset - dir.tailStart + dir.size)
      : await readExactly(source, dir.offset, dir.size, 'zip central directory');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let k = 0; k < dir.entries; k++) {
    if (at + CENTRAL_BYTES > bytes.length || view.getUint32(at, true) !== CENTRAL_SIGNATURE) {
      fail(`central directory entry ${k} is missing or corrupt`);
    }
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const end = at + CENTRAL_BYTES + nameLength + extraLength + commentLength;
    if (end > bytes.length) fail(`central directory entry ${k} runs past the directory`);
    let uncompressedSize: number = view.getUint32(at + 24, true);
    let compressedSize: number = view.getUint32(at + 20, true);
    let localHeaderOffset: number = view.getUint32(at + 42, true);
    const saturated = [uncompressedSize, compressedSize, localHeaderOffset].filter(
      (v) => v === 0xffffffff,
    ).length;
    const extra = zip64Values(view, at + CENTRAL_BYTES + nameLength, extraLength, saturated);
    if (uncompressedSize === 0xffffffff) uncompressedSize = extra.shift() as number;
    if (compressedSize === 0xffffffff) compressedSize = extra.shift() as number;
    if (localHeaderOffset === 0xffffffff) localHeaderOffset = extra.shift() as number;
    const name = decoder.decode(
      bytes.subarray(at + CENTRAL_BYTES, at + CENTRAL_BYTES + nameLength),
    );
    if (localHeaderOffset + LOCAL_BYTES + compressedSize > source.size) {
      fail(
        `member ${quote(name)} (${compressedSize} bytes at ${localHeaderOffset}) lies past the end of the ${source.size}-byte file`,
      );
    }
    entries.push({
      name,
      method: view.getUint16(at + 10, true),
      compressedSize,
      uncompressedSize,
      localHeaderOffset,
      encrypted: (view.getUint16(at + 8, true) & 1) !== 0,
    });
    at = end;
  }
  return entries;
}

/**
 * Where each entry's data starts: after its local header, whose name and extra field may differ
 * from the directory's (torch pads the extra field to align data). One batch of reads where the
 * source has one (an HTTP source answers it with requests in parallel); each start is checked to
 * leave the member's bytes within the source.
 */
export async function zipDataStarts(
  source: ByteSource,
  entries: readonly ZipEntry[],
): Promise<number[]> {
  const heads = entries.map(() => new Uint8Array(LOCAL_BYTES));
  const reads = entries.map((e, k) => ({
    position: e.localHeaderOffset,
    target: heads[k] as Uint8Array,
  }));
  if (canReadMany(source)) await source.readMany(reads);
  else {
    // A file reads each header in place: a thread-pool round trip for each 30-byte header was
    // most of the opening of a checkpoint of many small storages (docs/performance.md).
    const inPlace = readsInPlace(source) ? source : undefined;
    for (const r of reads) {
      const got = inPlace
        ? inPlace.readInPlace(r.target, r.position)
        : await source.read(r.target, r.position);
      if (got !== LOCAL_BYTES) fail(`a local header at ${r.position} is truncated`);
    }
  }
  return entries.map((e, k) => {
    const head = heads[k] as Uint8Array;
    const view = new DataView(head.buffer);
    if (view.getUint32(0, true) !== LOCAL_SIGNATURE) {
      fail(`member ${quote(e.name)}: no local header at offset ${e.localHeaderOffset}`);
    }
    const start =
      e.localHeaderOffset + LOCAL_BYTES + view.getUint16(26, true) + view.getUint16(28, true);
    if (start + e.compressedSize > source.size) {
      fail(
        `member ${quote(e.name)} (${e.compressedSize} bytes at ${start}) lies past the end of the ${source.size}-byte file`,
      );
    }
    return start;
  });
}
