// A little-endian reader over the first bytes of a GGUF file that may hold fewer bytes than the
// header needs: running past them throws MoreBytesNeeded (the caller reads further and parses
// again), running past the end of the file is a truncation. Every length is checked against the
// bytes the file has left before anything of that length is allocated or decoded.

import { TensorOpsError } from '@tensorops/core';

/** The header goes on past the bytes held: read at least `end` bytes of the file and parse again. */
export class MoreBytesNeeded extends Error {
  constructor(readonly end: number) {
    super(`GGUF header needs ${end} bytes`);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export class GgufCursor {
  position = 0;
  private readonly view: DataView;

  /**
   * `bytes`: the file's first bytes; `fileSize`: the whole file's size (bytes.length when the
   * file is all there).
   */
  constructor(
    private readonly bytes: Uint8Array,
    readonly fileSize: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes from the position to the end of the file. */
  get left(): number {
    return this.fileSize - this.position;
  }

  /**
   * Makes sure `n` more bytes are held, naming `what` (and `suffix`) when the file ends first.
   * Labels are joined only for the error: a vocabulary is hundreds of thousands of reads.
   */
  private need(n: number, what: string, suffix = ''): number {
    const at = this.position;
    if (n > this.fileSize - at) {
      throw new TensorOpsError(
        'E_FORMAT',
        `GGUF ${what}${suffix} at offset ${at} needs ${n} bytes, the file ends after ${this.fileSize - at}`,
      );
    }
    if (at + n > this.bytes.length) throw new MoreBytesNeeded(at + n);
    this.position = at + n;
    return at;
  }

  u8(what: string): number {
    return this.view.getUint8(this.need(1, what));
  }
  i8(what: string): number {
    return this.view.getInt8(this.need(1, what));
  }
  u16(what: string): number {
    return this.view.getUint16(this.need(2, what), true);
  }
  i16(what: string): number {
    return this.view.getInt16(this.need(2, what), true);
  }
  u32(what: string): number {
    return this.view.getUint32(this.need(4, what), true);
  }
  i32(what: string): number {
    return this.view.getInt32(this.need(4, what), true);
  }
  f32(what: string): number {
    return this.view.getFloat32(this.need(4, what), true);
  }
  f64(what: string): number {
    return this.view.getFloat64(this.need(8, what), true);
  }
  u64(what: string): bigint {
    return this.view.getBigUint64(this.need(8, what), true);
  }
  i64(what: string): bigint {
    return this.view.getBigInt64(this.need(8, what), true);
  }

  /**
   * A u64 that must fit in `max` (a count or size bounded by the file): as a number, read as two
   * u32 halves (no bigint per value).
   */
  size(what: string, max: number, why: string, suffix = ''): number {
    const at = this.need(8, what, suffix);
    const low = this.view.getUint32(at, true);
    const high = this.view.getUint32(at + 4, true);
    // Exact below 2^53, which every bound here is.
    const n = high * 2 ** 32 + low;
    if (high >= 2 ** 21 || n > max) {
      const exact = this.view.getBigUint64(at, true);
      throw new TensorOpsError(
        'E_FORMAT',
        `GGUF ${what}${suffix} at offset ${at} is ${exact}: ${why}`,
      );
    }
    return n;
  }

  /** A u64-length-prefixed UTF-8 string, its length bounded by the file. */
  string(what: string): string {
    const length = this.size(
      what,
      Math.max(0, this.left - 8),
      'longer than the rest of the file',
      ' length',
    );
    const at = this.need(length, what);
    try {
      return UTF8.decode(this.bytes.subarray(at, at + length));
    } catch {
      throw new TensorOpsError('E_FORMAT', `GGUF ${what} at offset ${at - 8} is not valid UTF-8`);
    }
  }
}
