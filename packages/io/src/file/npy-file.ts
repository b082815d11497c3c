// .npy from a byte source: header first, sizes checked against the source size; the data is read
// on demand, exactly the bytes the header declares.

import { type NpyHeader, npyDataOffset, npyDataToTensor, readNpyHeader } from '../npy.js';
import { type ByteSource, readExactly } from './source.js';
import type { FormatReader, StoredTensor } from './stored.js';

/** Enough for npyDataOffset: magic, version and the length field of any version. */
export const PREAMBLE_BYTES = 12;

/** Reads the header of a .npy source (sizes checked against the source size) into a reader. */
export async function npyReader(source: ByteSource): Promise<FormatReader> {
  const prefix = await readExactly(
    source,
    0,
    Math.min(PREAMBLE_BYTES, source.size),
    '.npy preamble',
  );
  const dataOffset = npyDataOffset(prefix);
  // A short read is fine here: readNpyHeader reports the truncation in .npy terms.
  const headerBytes = dataOffset <= prefix.length ? prefix : await readUpTo(source, dataOffset);
  const header = readNpyHeader(headerBytes, Math.max(0, source.size - dataOffset));
  const stored = npyStoredTensor(header);
  return {
    format: 'npy',
    tensors: [stored],
    metadata: null,
    rangedStreams: true,
    async read(t) {
      const data = await readExactly(source, dataOffset, t.nbytes, '.npy data');
      return npyDataToTensor(header, data);
    },
    async close() {},
  };
}

/** The one tensor of a .npy, as its header describes it. */
export function npyStoredTensor(header: NpyHeader): StoredTensor {
  return {
    name: null,
    dtype: header.dtype,
    displayDtype: header.dtype,
    formatDtype: header.descr,
    shape: header.shape,
    nbytes: header.nbytes,
    offset: header.dataOffset,
    fortranOrder: header.fortranOrder,
    byteOrder: header.byteOrder,
  };
}

async function readUpTo(source: ByteSource, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(Math.min(length, source.size));
  const got = await source.read(buf, 0);
  return buf.subarray(0, got);
}
