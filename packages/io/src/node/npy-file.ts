// .npy from a file: header first, sizes checked against the file size, then exactly one
// allocation for the data, read straight into place.

import { open } from 'node:fs/promises';
import type { Tensor } from '@tensorops/core';
import { decodeNpy, npyDataOffset, npyDataToTensor, readNpyHeader } from '../npy.js';
import { fileError } from './errors.js';
import { readInto, readRange } from './read.js';
import { readDeclaredBytes } from './read-declared.js';
import { type ByteSource, readExactly } from './source.js';
import type { FormatReader, StoredTensor } from './stored.js';

/** Enough for npyDataOffset: magic, version and the length field of any version. */
const PREAMBLE_BYTES = 12;

export async function readNpyFile(path: string): Promise<Tensor> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(path, 'r');
    const stat = await fh.stat();
    if (!stat.isFile()) {
      // A pipe or device (/dev/stdin, <(cmd)) has no size to check up front: read its header,
      // then exactly the data it declares.
      return decodeNpy(
        await readDeclaredBytes(fh.createReadStream({ autoClose: false }), path, 'npy'),
      );
    }
    const size = stat.size;
    const preamble = await readRange(fh, 0, Math.min(PREAMBLE_BYTES, size));
    const dataOffset = npyDataOffset(preamble);
    const headerBytes =
      dataOffset <= preamble.length ? preamble : await readRange(fh, 0, Math.min(dataOffset, size));
    const header = readNpyHeader(headerBytes, Math.max(0, size - dataOffset));
    const data = new Uint8Array(header.nbytes);
    const got = await readInto(fh, data, dataOffset);
    // The file shrank between fstat and read; npyDataToTensor names both sizes.
    return npyDataToTensor(header, got === data.length ? data : data.subarray(0, got));
  } catch (cause) {
    throw fileError(path, 'read', cause);
  } finally {
    await fh?.close().catch(() => {});
  }
}

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
  const stored: StoredTensor = {
    name: null,
    dtype: header.dtype,
    displayDtype: header.dtype,
    formatDtype: header.descr,
    shape: header.shape,
    nbytes: header.nbytes,
    offset: dataOffset,
    fortranOrder: header.fortranOrder,
    byteOrder: header.byteOrder,
  };
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

async function readUpTo(source: ByteSource, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(Math.min(length, source.size));
  const got = await source.read(buf, 0);
  return buf.subarray(0, got);
}
