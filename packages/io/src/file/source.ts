// Random access to the bytes of a tensor file, whatever holds them: a file handle (Node), a Blob,
// a URL, or a buffer for inputs that cannot seek and for tests. Runtime-neutral. A source is only
// what every source has; the abilities some have (reading many ranges at once, bytes held in
// memory, freeing what is read) are the optional interfaces of capabilities.ts.

import { TensorOpsError } from '@tensorops/core';
import { type InMemoryBytes, rangeOf } from './capabilities.js';

export interface ByteSource {
  /** Names the source in messages: the path as given. */
  readonly label: string;
  readonly size: number;
  /** Fills `target` from `position` on; returns the bytes read (fewer only at the end). */
  read(target: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
}

class BufferSource implements ByteSource, InMemoryBytes {
  constructor(
    readonly label: string,
    private readonly bytes: Uint8Array,
  ) {}

  get size(): number {
    return this.bytes.length;
  }

  async read(target: Uint8Array, position: number): Promise<number> {
    const part = this.bytes.subarray(
      Math.min(position, this.bytes.length),
      position + target.length,
    );
    target.set(part);
    return part.length;
  }

  bytesInMemory(position: number, length: number): Uint8Array | undefined {
    return rangeOf(this.bytes, position, length);
  }

  async close(): Promise<void> {}
}

export function bufferSource(bytes: Uint8Array, label = 'buffer'): ByteSource {
  return new BufferSource(label, bytes);
}

/**
 * The first bytes of a file of `size` bytes, the rest never read (a header from a stream): reads
 * within `bytes` are served, a read past them is an E_IO error naming the label.
 */
export function headerSource(bytes: Uint8Array, size: number, label: string): ByteSource {
  return {
    label,
    size,
    async read(target, position) {
      if (position + target.length > bytes.length && position < size) {
        throw new TensorOpsError('E_IO', `${label}: only its header was read, not its data`);
      }
      return bufferSource(bytes, label).read(target, position);
    },
    async close() {},
  };
}

/** Exactly `length` bytes at `position`, or E_FORMAT naming `what` when the source ends first. */
export async function readExactly(
  source: ByteSource,
  position: number,
  length: number,
  what: string,
): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  const got = await source.read(buf, position);
  if (got !== length) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${what} truncated: needs ${length} bytes at offset ${position}, only ${got} available`,
    );
  }
  return buf;
}
