// A .npy on a stream (stdin, a pipe), its header read from the first bytes and its data left on
// the stream, for a caller that consumes it window by window (the stream sweep) or copies it to a
// file (a spill, through the CopyToFile capability of a stream given as a descriptor).

import { TensorOpsError } from '@tensorops/core';
import { descriptorCopier } from '../fast/spill/copy-to-file.js';
import type { NpyOnStream } from '../file/gather-file/stream-sweep.js';
import { npyDataOffset, npyDataToTensor, readNpyHeader } from '../npy.js';
import { descriptorChunks, descriptorRead, Prefix } from './prefix.js';
import { MAX_STREAM_BYTES } from './read.js';

export interface NpyStreamOptions {
  /**
   * The caller will likely copy the data elsewhere (a gather that spills): on a descriptor with
   * large declared data, the copy worker starts as soon as the header is read.
   */
  readonly copyAhead?: boolean;
}

/**
 * Reads the header of a .npy stream from its first bytes (refusing anything else there) and
 * leaves the data on the stream, for a caller that can consume it window by window. `stream` may
 * be a descriptor (of a pipe, in blocking mode), read by read(2) straight into the caller's
 * buffers.
 */
export async function openNpyStream(
  stream: AsyncIterable<Uint8Array | string> | number,
  label: string,
  options: NpyStreamOptions = {},
): Promise<NpyOnStream> {
  const direct = typeof stream === 'number' ? descriptorRead(stream) : undefined;
  const chunks =
    direct === undefined
      ? (stream as AsyncIterable<Uint8Array | string>)
      : descriptorChunks(direct);
  const prefix = new Prefix(chunks[Symbol.asyncIterator](), label, direct);
  let header: NpyOnStream['header'];
  let headerBytes: Uint8Array;
  try {
    const dataOffset = npyDataOffset(await prefix.take(12));
    headerBytes = (await prefix.take(dataOffset)).slice();
    header = readNpyHeader(headerBytes);
    prefix.skip(dataOffset);
  } catch (error) {
    await prefix.close();
    throw error;
  }
  let left = header.nbytes;
  const read = async (target: Uint8Array): Promise<number> => {
    const got = await prefix.readInto(target.subarray(0, Math.min(target.length, left)));
    left -= got;
    return got;
  };
  // A descriptor's data can be copied to a file by a worker thread (a spill), started ahead when
  // asked for.
  const copier =
    direct === undefined
      ? undefined
      : descriptorCopier(
          {
            fd: stream as number,
            get held() {
              return prefix.held;
            },
            get left() {
              return left;
            },
            read,
            taken(bytes) {
              left -= bytes;
            },
          },
          options.copyAhead === true,
        );
  return {
    label,
    header,
    headerBytes,
    read,
    ...(copier === undefined ? {} : { copyTo: copier.copyTo }),
    async readTensor() {
      if (left > MAX_STREAM_BYTES) {
        throw new TensorOpsError(
          'E_IO',
          `${label}: input exceeds the ${MAX_STREAM_BYTES}-byte limit`,
        );
      }
      const data = new Uint8Array(left);
      return npyDataToTensor(header, data.subarray(0, await read(data)));
    },
    async close() {
      await copier?.stop();
      await prefix.close();
    },
  };
}
