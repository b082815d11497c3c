// Reading bytes from files and streams with every size checked before the big allocation.

import { constants } from 'node:buffer';
import { readSync } from 'node:fs';
import { TensorOpsError } from '@tensorops/core';
import { ioError } from '../file/errors.js';
import { readFd } from './fs-calls.js';

/** Largest single read or write handed to the OS (Node refuses more than 2^31-1 per call). */
const IO_CHUNK = 1 << 30;

/**
 * Default cap for stream input held in memory: 4 GiB, the largest buffer Node 20 can allocate,
 * on every Node (Node 22 and later allow 2^53-1, which would let a header ask for any size).
 */
export const MAX_STREAM_BYTES = Math.min(constants.MAX_LENGTH, 2 ** 32);

/** Fills `target` from `position` on; returns the bytes read (fewer only at end of file). */
export async function readInto(fd: number, target: Uint8Array, position: number): Promise<number> {
  let done = 0;
  while (done < target.length) {
    const length = Math.min(IO_CHUNK, target.length - done);
    const { bytesRead } = await readFd(fd, target, done, length, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** {@link readInto} on the calling thread. */
export function readInPlace(fd: number, target: Uint8Array, position: number): number {
  let done = 0;
  while (done < target.length) {
    const length = Math.min(IO_CHUNK, target.length - done);
    const got = readSync(fd, target, done, length, position + done);
    if (got === 0) break;
    done += got;
  }
  return done;
}

/** Reads `length` bytes at `position`, or fewer if the file ends first. */
export async function readRange(fd: number, position: number, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  const got = await readInto(fd, buf, position);
  return got === length ? buf : buf.subarray(0, got);
}

export interface ReadStreamOptions {
  /** Refuse input longer than this many bytes (default: {@link MAX_STREAM_BYTES}). */
  readonly maxBytes?: number;
  /** Names the source in error messages (default `stream`). */
  readonly label?: string;
}

/**
 * Collects a byte stream (a Readable, `process.stdin`, any async iterable of Uint8Array) into one
 * freshly allocated Uint8Array. Text chunks are refused: a stream with an encoding set has already
 * corrupted binary data.
 */
export async function readStream(
  stream: AsyncIterable<Uint8Array | string>,
  options: ReadStreamOptions = {},
): Promise<Uint8Array> {
  const label = options.label ?? 'stream';
  const maxBytes = options.maxBytes ?? MAX_STREAM_BYTES;
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      if (typeof chunk === 'string') {
        throw new TensorOpsError(
          'E_IO',
          `${label}: yields text, expected raw bytes (remove setEncoding)`,
        );
      }
      total += chunk.byteLength;
      if (total > maxBytes) {
        throw new TensorOpsError('E_IO', `${label}: input exceeds the ${maxBytes}-byte limit`);
      }
      chunks.push(chunk);
    }
  } catch (cause) {
    if (cause instanceof TensorOpsError) throw cause;
    throw ioError(label, 'read', cause);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** All of standard input as bytes (see {@link readStream}). */
export function readStdin(options: ReadStreamOptions = {}): Promise<Uint8Array> {
  return readStream(process.stdin, { label: 'stdin', ...options });
}
