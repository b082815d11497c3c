// .npz outside Node: zip.js's reader reads the central directory (zip64 included) through the
// byte source, so a Blob or URL is read by ranges; deflate members are inflated by the runtime's
// DecompressionStream('deflate-raw') as their compressed bytes are read, piece by piece, so that
// npz-file.ts bounds the output by the declared size as it grows. CRC-32 is crc-32's. The rules of
// the format are npz-file.ts's, as in Node. Both libraries load on first use.

import { TensorOpsError } from '@tensorops/core';
import type { Entry, Reader } from '@zip.js/zip.js';
import { quote } from '../text.js';
import { npzReaderOf, type ZipMember, zipError } from './npz-file.js';
import { type ByteSource, readExactly } from './source.js';
import type { FormatReader } from './stored.js';

interface ZipJsMember extends ZipMember {
  readonly entry: Entry;
}

const LOCAL_HEADER_BYTES = 30;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
/** No web workers (only the directory is read through zip.js); names kept as stored. */
const OPTIONS = { useWebWorkers: false, filenameValidation: 'tolerant' } as const;
/** Compressed bytes read from the source at a time while inflating. */
const INFLATE_INPUT_BYTES = 1 << 20;

// CommonJS (crc-32) and ES modules alike: the functions are on the default export when there is one.
async function load<T>(module: Promise<T & { default?: T }>): Promise<T> {
  const mod = await module;
  return mod.default ?? mod;
}

/** Reads the central directory and each member's .npy header: everything but the data. */
export async function npzReaderWeb(source: ByteSource): Promise<FormatReader> {
  // The reader alone: no writer, workers or bundled inflate codecs.
  const { ZipReader } = await import('@zip.js/zip.js/lib/zip-core-reader.js');
  const crc = await load<typeof import('crc-32')>(import('crc-32'));
  // zip.js reads through any object with a size and readUint8Array (short only at the end).
  const reader = {
    size: source.size,
    async readUint8Array(index: number, length: number): Promise<Uint8Array> {
      const target = new Uint8Array(Math.max(0, Math.min(length, source.size - index)));
      const got = await source.read(target, index);
      return target.subarray(0, got);
    },
  };
  let members: ZipJsMember[];
  try {
    // Its types ask for a whole Reader (a `readable` too), which reading the directory never uses.
    const zip = new ZipReader(reader as unknown as Reader<unknown>, OPTIONS);
    members = (await zip.getEntries()).map((entry) => ({
      entry,
      fileName: entry.filename,
      compressionMethod: entry.compressionMethod,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
      crc32: entry.crc32 ?? 0,
      encrypted: entry.encrypted,
    }));
  } catch (cause) {
    throw zipError(cause, 'not a readable .npz (zip) file');
  }
  const starts = new Map<ZipJsMember, number>();
  /** Where the member's data starts: after its local header, whose name and extra may differ. */
  const dataStart = async (m: ZipJsMember): Promise<number> => {
    const known = starts.get(m);
    if (known !== undefined) return known;
    const at = m.entry.offset;
    const what = `.npz member ${quote(m.fileName)}`;
    const head = await readExactly(source, at, LOCAL_HEADER_BYTES, `${what} local header`);
    const view = new DataView(head.buffer);
    if (view.getUint32(0, true) !== LOCAL_HEADER_SIGNATURE) {
      throw new TensorOpsError('E_FORMAT', `${what}: no local header at offset ${at}`);
    }
    const start = at + LOCAL_HEADER_BYTES + view.getUint16(26, true) + view.getUint16(28, true);
    starts.set(m, start);
    return start;
  };
  return npzReaderOf(source, {
    members,
    dataStart,
    async *inflate(m) {
      const start = await dataStart(m);
      const end = start + m.compressedSize;
      let at = start;
      // Pulled a piece at a time, as the inflate asks for more: memory stays at a few pieces.
      const compressed = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (at === end) return controller.close();
          const n = Math.min(INFLATE_INPUT_BYTES, end - at);
          controller.enqueue(await readExactly(source, at, n, `.npz member ${quote(m.fileName)}`));
          at += n;
        },
      });
      const reader = compressed
        .pipeThrough(
          new DecompressionStream('deflate-raw') as TransformStream<Uint8Array, Uint8Array>,
        )
        .getReader();
      try {
        for (;;) {
          const step = await reader.read();
          if (step.done) return;
          yield step.value;
        }
      } finally {
        await reader.cancel().catch(() => {});
      }
    },
    crc32: (data, seed) => crc.buf(data, seed),
  });
}
