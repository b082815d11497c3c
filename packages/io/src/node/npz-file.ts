// .npz in Node through yauzl (reading: central directory, zip64, local headers, inflate) and yazl
// (writing). The rules of the format are ../file/npz-file.ts's, the same in every runtime; this
// module gives them yauzl's archive and writes archives. Both libraries load on first use, so
// commands that never touch an .npz do not pay for them; nor for node:stream and node:zlib, which
// load Node's stream classes (milliseconds of a small run's start-up).

import type { Readable } from 'node:stream';
import type { Entry, ZipFile } from 'yauzl';
import { hasDescriptor, holdsBytes } from '../file/capabilities.js';
import { beyondDeclared, npzReaderOf, type ZipMember, zipError } from '../file/npz-file.js';
import { type ByteSource, readExactly } from '../file/source.js';
import type { FormatReader } from '../file/stored.js';
import { checkedChunks, type TensorStream } from '../file/tensor-stream.js';
import { encodeNpyHeader } from '../npy.js';
import { npzMemberName } from '../npz.js';
import { quote } from '../text.js';

interface YauzlMember extends ZipMember {
  readonly entry: Entry;
}

// CommonJS modules: under Node's ESM loader and inside a bundle the functions are reliably on
// the default export (module.exports), not always as named exports.
async function loadYauzl(): Promise<typeof import('yauzl')> {
  const mod = await import('yauzl');
  return (mod.default ?? mod) as typeof mod;
}

async function openZip(yauzl: typeof import('yauzl'), source: ByteSource): Promise<ZipFile> {
  const options = {
    lazyEntries: true,
    autoClose: false,
    // Names are decoded by memberName below.
    decodeStrings: false,
    validateEntrySizes: true,
  };
  try {
    if (hasDescriptor(source)) return await yauzl.fromFdPromise(source.fd, options);
    const bytes = holdsBytes(source) ? source.bytesInMemory(0, source.size) : undefined;
    if (bytes === undefined) {
      return await yauzl.fromRandomAccessReaderPromise(
        sourceReader(yauzl, source),
        source.size,
        options,
      );
    }
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
      return process.getBuiltinModule('node:stream').Readable.from(
        (async function* () {
          yield Buffer.from((await readExactly(source, start, end - start, '.npz')).buffer);
        })(),
      );
    }
  }
  return new SourceReader();
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

/** Reads the central directory and each member's .npy header: everything but the data. */
export async function npzReader(source: ByteSource): Promise<FormatReader> {
  const yauzl = await loadYauzl();
  const zip = await openZip(yauzl, source);
  const members: YauzlMember[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      entry.fileName = memberName(yauzl, entry);
      members.push({
        entry,
        fileName: entry.fileName,
        compressionMethod: entry.compressionMethod,
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
        crc32: entry.crc32,
        encrypted: entry.isEncrypted(),
      });
    }
  } catch (cause) {
    throw zipError(cause);
  }
  // Not zip.close() at the end: for a file, yauzl would close the descriptor, which belongs to
  // the source (closed by its owner); for a buffer there is nothing to release.
  return npzReaderOf(source, {
    members,
    async dataStart(m) {
      return (await zip.readLocalFileHeaderPromise(m.entry, { minimal: true })).fileDataStart;
    },
    async *inflate(m) {
      let stream: Readable;
      try {
        stream = await zip.openReadStreamPromise(m.entry);
      } catch (cause) {
        throw zipError(cause, `.npz member ${quote(m.fileName)}`);
      }
      try {
        yield* stream as AsyncIterable<Uint8Array>;
      } catch (cause) {
        const message = cause instanceof Error ? cause.message : '';
        throw message.startsWith('too many bytes') ? beyondDeclared(m) : cause;
      } finally {
        stream.destroy();
      }
    },
    crc32: (data, crc) => process.getBuiltinModule('node:zlib').crc32(data, crc),
  });
}

export interface NpzWriteEntry {
  readonly name: string;
  readonly data: TensorStream;
}

export interface NpzWriteOptions {
  /** Deflate the members (np.savez_compressed); default stored, like np.savez. */
  readonly compress?: boolean;
}

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
  // A fixed date (the one np.savez leaves in its members), so the same tensors give the same
  // bytes. Made here, not when the module loads: a Date from local time fields makes ICU look up
  // the host's time zone, which a run that writes no .npz need not pay for.
  const epoch = new Date(1980, 0, 1, 0, 0, 0);
  for (const { name, data } of entries) {
    const header = encodeNpyHeader(data);
    const member = npzMemberName(name);
    zip.addReadStreamLazy(
      member,
      {
        compress: options.compress === true,
        size: header.length + data.nbytes,
        mtime: epoch,
        forceDosTimestamp: true,
      },
      (callback) => {
        const memberStream = process.getBuiltinModule('node:stream').Readable.from(
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
