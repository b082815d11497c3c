// A tensor file from a pipe or device (stdin, /dev/zero, `<(cmd)`): nothing can be seeked or
// sized up front, so the header is read first, from the first bytes, and then exactly the bytes it
// declares. Whatever follows is never read: an endless or hostile stream costs what its header
// honestly claims, and a stream that is not a tensor file is refused after its first bytes.

import { createReadStream, read } from 'node:fs';
import { TensorOpsError } from '@tensorops/core';
import { formatOfMagic, type TensorFormat } from '../convert.js';
import { ioError } from '../file/errors.js';
import type { NpyOnStream } from '../file/gather-file/stream-sweep.js';
import { npyDataOffset, npyDataToTensor, readNpyHeader } from '../npy.js';
import { parseSafetensorsHeader, safetensorsHeaderLength } from '../safetensors.js';
import { type PipeCopier, startPipeCopier } from './pipe-copy.js';
import { MAX_STREAM_BYTES } from './read.js';

/** Declared data from which a descriptor's copier is started ahead (see openNpyStream). */
const COPIER_AHEAD_BYTES = 64 << 20;

/** One read(2) from a descriptor into a caller's buffer: the byte count, 0 at the end. */
type DirectRead = (target: Uint8Array) => Promise<number>;

function descriptorRead(fd: number): DirectRead {
  return (target) =>
    new Promise((resolve, reject) =>
      read(fd, target, 0, target.length, null, (error, got) =>
        error === null ? resolve(got) : reject(error),
      ),
    );
}

/** A descriptor as a stream of chunks, each in a buffer of its own (what the header needs). */
async function* descriptorChunks(direct: DirectRead): AsyncIterable<Uint8Array> {
  for (;;) {
    const chunk = new Uint8Array(64 << 10);
    const got = await direct(chunk);
    if (got === 0) return;
    yield chunk.subarray(0, got);
  }
}

/**
 * The bytes of a stream, pulled only as far as asked. With `direct` (a descriptor), bulk reads go
 * straight into the caller's buffer: no chunk is allocated per read, so a long pipe leaves no
 * garbage behind it.
 */
class Prefix {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;
  private ended = false;

  constructor(
    private readonly source: AsyncIterator<Uint8Array | string>,
    private readonly label: string,
    private readonly direct?: DirectRead,
  ) {}

  /** Reads until `n` bytes are held or the stream ends; returns the first min(n, held) bytes. */
  async take(n: number): Promise<Uint8Array> {
    while (this.length < n) {
      const chunk = await this.pull();
      if (chunk === undefined) break;
      this.chunks.push(chunk);
      this.length += chunk.byteLength;
    }
    return this.first(n);
  }

  /**
   * The first `n` bytes (fewer when the stream ends first) in one buffer allocated once: what is
   * held is copied in and each later chunk goes straight after it, so the bytes are never held
   * twice (a pipe of W8's 256 MB is 256 MB, not 512). The buffer's pages are committed only as
   * bytes arrive.
   */
  async fill(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    return out.subarray(0, await this.readInto(out));
  }

  /**
   * Fills `target` with the next bytes of the stream; fewer only where the stream ends. What is
   * left of the last chunk is held for the next call, so that the stream can be read on window by
   * window into one reused buffer.
   */
  async readInto(target: Uint8Array): Promise<number> {
    let at = 0;
    while (at < target.length) {
      if (this.chunks.length === 0 && this.direct !== undefined) {
        const got = await this.readDirect(this.direct, target.subarray(at));
        if (got === 0) break;
        at += got;
        continue;
      }
      const chunk = this.chunks.shift() ?? (await this.pull());
      if (chunk === undefined) break;
      const take = Math.min(chunk.byteLength, target.length - at);
      target.set(take === chunk.byteLength ? chunk : chunk.subarray(0, take), at);
      if (take < chunk.byteLength) this.chunks.unshift(chunk.subarray(take));
      at += take;
    }
    this.length = this.chunks.reduce((sum, c) => sum + c.byteLength, 0);
    return at;
  }

  private async readDirect(direct: DirectRead, target: Uint8Array): Promise<number> {
    if (this.ended) return 0;
    try {
      const got = await direct(target);
      if (got === 0) this.ended = true;
      return got;
    } catch (cause) {
      throw ioError(this.label, 'read', cause);
    }
  }

  /** The next chunk, or undefined at the end of the stream. */
  private async pull(): Promise<Uint8Array | undefined> {
    if (this.ended) return undefined;
    let next: IteratorResult<Uint8Array | string>;
    try {
      next = await this.source.next();
    } catch (cause) {
      throw ioError(this.label, 'read', cause);
    }
    if (next.done === true) {
      this.ended = true;
      return undefined;
    }
    if (typeof next.value === 'string') {
      throw new TensorOpsError(
        'E_IO',
        `${this.label}: yields text, expected raw bytes (remove setEncoding)`,
      );
    }
    return next.value;
  }

  private first(n: number): Uint8Array {
    const head = this.chunks[0];
    if (head !== undefined && head.byteLength >= Math.min(n, this.length)) {
      return head.subarray(0, n);
    }
    const out = new Uint8Array(Math.min(n, this.length));
    let at = 0;
    for (const chunk of this.chunks) {
      if (at === out.length) break;
      const part = chunk.subarray(0, out.length - at);
      out.set(part, at);
      at += part.length;
    }
    // Later calls start from the joined bytes, so joining never repeats.
    this.chunks.splice(0, this.chunks.length, out, ...this.rest(out.length));
    return out;
  }

  private rest(skip: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let at = 0;
    for (const chunk of this.chunks) {
      const end = at + chunk.byteLength;
      if (end > skip) out.push(chunk.subarray(Math.max(0, skip - at)));
      at = end;
    }
    return out;
  }

  /** How many bytes are held, read from the stream and not yet taken. */
  get held(): number {
    return this.length;
  }

  /** Drops the first `n` bytes held (a header already parsed). */
  skip(n: number): void {
    this.first(n);
    this.chunks.splice(0, this.chunks.length, ...this.rest(n));
    this.length -= n;
  }

  async close(): Promise<void> {
    await this.source.return?.();
  }
}

/** How many bytes the file is, from its header; reads only the header to find out. */
async function declaredLength(prefix: Prefix, format: TensorFormat): Promise<number> {
  if (format === 'npy') {
    const dataOffset = npyDataOffset(await prefix.take(12));
    const header = readNpyHeader(await prefix.take(dataOffset));
    // Trailing bytes are ignored by numpy and never read here.
    return dataOffset + header.nbytes;
  }
  if (format === 'safetensors') {
    const length = safetensorsHeaderLength(await prefix.take(8));
    const header = parseSafetensorsHeader(await prefix.take(8 + length));
    // One byte more, so that the reader can refuse data after the last tensor, as for a file.
    return header.dataOffset + header.dataBytes + 1;
  }
  // A zip's directory is at its end: all of it is needed.
  return MAX_STREAM_BYTES;
}

/**
 * readDeclaredBytes from descriptor `fd` (a pipe or device), through a stream that owns the
 * descriptor: it is closed once, by the stream, whatever happens. (The stream closes it when
 * destroyed, whatever its autoClose says; a caller that closed the number as well could close a
 * file that reused it in between.)
 */
export async function readDeclaredFromDescriptor(
  fd: number,
  label: string,
  format?: TensorFormat,
): Promise<Uint8Array> {
  const stream = createReadStream('', { fd });
  try {
    return await readDeclaredBytes(stream, label, format);
  } finally {
    if (!stream.closed) {
      await new Promise<void>((resolve) => {
        stream.once('close', () => resolve());
        stream.destroy();
      });
    }
  }
}

/**
 * The bytes of a tensor file read from a stream: its header (checked from the first bytes on),
 * then exactly the data the header declares, and nothing after it. `format` comes from the name,
 * else from the magic bytes. Refuses a stream that is not a tensor file after its first bytes; a
 * stream that ends early yields fewer bytes, for the format reader to report as truncated.
 */
export async function readDeclaredBytes(
  stream: AsyncIterable<Uint8Array | string>,
  label: string,
  format?: TensorFormat,
): Promise<Uint8Array> {
  const prefix = new Prefix(stream[Symbol.asyncIterator](), label);
  try {
    const total = await declaredLength(prefix, format ?? formatOfMagic(await prefix.take(9)));
    if (total > MAX_STREAM_BYTES) {
      throw new TensorOpsError(
        'E_IO',
        `${label}: input exceeds the ${MAX_STREAM_BYTES}-byte limit`,
      );
    }
    // A zip's length is unknown (MAX_STREAM_BYTES): its chunks are held and joined at the end.
    const bytes = total === MAX_STREAM_BYTES ? await prefix.take(total) : await prefix.fill(total);
    if (total === MAX_STREAM_BYTES && bytes.length === total) {
      throw new TensorOpsError('E_IO', `${label}: input exceeds the ${total}-byte limit`);
    }
    return bytes;
  } finally {
    await prefix.close();
  }
}

export interface NpyStreamOptions {
  /**
   * The caller will likely copy the data elsewhere (copyTo: a gather that spills): on a
   * descriptor with large declared data, the copy worker starts as soon as the header is read.
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
  // A copy asked for ahead starts its worker now, while the caller reads the indices and plans.
  let copier: PipeCopier | undefined =
    options.copyAhead === true && direct !== undefined && header.nbytes >= COPIER_AHEAD_BYTES
      ? startPipeCopier()
      : undefined;
  const copyTo = async (fd: number, progress?: SharedArrayBuffer): Promise<number> => {
    // What reading the header left held goes first; the rest straight from the descriptor.
    const held = new Uint8Array(Math.min(prefix.held, left));
    const first = await read(held);
    copier ??= startPipeCopier();
    const rest = await copier.copy(stream as number, fd, held.subarray(0, first), left, progress);
    left -= rest;
    return first + rest;
  };
  return {
    label,
    header,
    headerBytes,
    read,
    ...(direct === undefined ? {} : { copyTo }),
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
