// .npy from a file path in one call: header first, sizes checked against the file size, then
// exactly one allocation for the data, read straight into place.

import type { Tensor } from '@tensorops/core';
import { fileError } from '../file/errors.js';
import { PREAMBLE_BYTES } from '../file/npy-file.js';
import { decodeNpy, npyDataOffset, npyDataToTensor, readNpyHeader } from '../npy.js';
import { closeFd, fstatFd, openFd } from './fs-calls.js';
import { readInto, readRange } from './read.js';
import { readDeclaredFromDescriptor } from './read-declared.js';

export async function readNpyFile(path: string): Promise<Tensor> {
  let fd: number | undefined;
  try {
    fd = await openFd(path, 'r');
    const stat = await fstatFd(fd);
    if (!stat.isFile()) {
      // A pipe or device (/dev/stdin, <(cmd)) has no size to check up front: read its header,
      // then exactly the data it declares. That read closes the descriptor.
      const owned = fd;
      fd = undefined;
      return decodeNpy(await readDeclaredFromDescriptor(owned, path, 'npy'));
    }
    const size = stat.size;
    const preamble = await readRange(fd, 0, Math.min(PREAMBLE_BYTES, size));
    const dataOffset = npyDataOffset(preamble);
    const headerBytes =
      dataOffset <= preamble.length ? preamble : await readRange(fd, 0, Math.min(dataOffset, size));
    const header = readNpyHeader(headerBytes, Math.max(0, size - dataOffset));
    const data = new Uint8Array(header.nbytes);
    const got = await readInto(fd, data, dataOffset);
    // The file shrank between fstat and read; npyDataToTensor names both sizes.
    return npyDataToTensor(header, got === data.length ? data : data.subarray(0, got));
  } catch (cause) {
    throw fileError(path, 'read', cause);
  } finally {
    if (fd !== undefined) await closeFd(fd).catch(() => {});
  }
}
