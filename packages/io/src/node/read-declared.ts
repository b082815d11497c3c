// A tensor file from a pipe or device (stdin, /dev/zero, `<(cmd)`): nothing can be seeked or
// sized up front, so the header is read first, from the first bytes, and then exactly the bytes it
// declares. Whatever follows is never read: an endless or hostile stream costs what its header
// honestly claims, and a stream that is not a tensor file is refused after its first bytes.

import { TensorOpsError } from '@tensorops/core';
import { formatOfMagic, type TensorFormat } from '../convert.js';
import { ioError } from '../file/errors.js';
import { npyDataOffset, readNpyHeader } from '../npy.js';
import { parseSafetensorsHeader, safetensorsHeaderLength } from '../safetensors.js';
import { MAX_STREAM_BYTES } from './read.js';

/** The bytes of a stream, pulled only as far as asked. */
class Prefix {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;
  private ended = false;

  constructor(
    private readonly source: AsyncIterator<Uint8Array | string>,
    private readonly label: string,
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
   * bytes arrive. Ends the prefix: nothing is held after it.
   */
  async fill(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let at = 0;
    const put = (chunk: Uint8Array): void => {
      const part = chunk.subarray(0, n - at);
      out.set(part, at);
      at += part.byteLength;
    };
    for (const chunk of this.chunks.splice(0)) put(chunk);
    this.length = 0;
    while (at < n) {
      const chunk = await this.pull();
      if (chunk === undefined) break;
      put(chunk);
    }
    return out.subarray(0, at);
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
