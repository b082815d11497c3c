// The first bytes of a stream, pulled only as far as a reader asks, and then the rest in order: a
// header is parsed from what is held, the data is read on into the caller's buffers. A descriptor
// (a pipe in blocking mode) is read by read(2) straight into those buffers.

import { read } from 'node:fs';
import { TensorOpsError } from '@tensorops/core';
import { ioError } from '../file/errors.js';

/** One read(2) from a descriptor into a caller's buffer: the byte count, 0 at the end. */
export type DirectRead = (target: Uint8Array) => Promise<number>;

export function descriptorRead(fd: number): DirectRead {
  return (target) =>
    new Promise((resolve, reject) =>
      read(fd, target, 0, target.length, null, (error, got) =>
        error === null ? resolve(got) : reject(error),
      ),
    );
}

/** A descriptor as a stream of chunks, each in a buffer of its own (what the header needs). */
export async function* descriptorChunks(direct: DirectRead): AsyncIterable<Uint8Array> {
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
export class Prefix {
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
   * twice. The buffer's pages are committed only as
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
