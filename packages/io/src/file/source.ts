// Random access to the bytes of a tensor file, whatever holds them: a file handle (Node), a Blob,
// a URL, or a buffer for inputs that cannot seek and for tests. Runtime-neutral.

import { TensorOpsError } from '@tensorops/core';

export interface ByteSource {
  /** Names the source in messages: the path as given. */
  readonly label: string;
  readonly size: number;
  /** The file descriptor of a file source (yauzl reads the zip directory through it). */
  readonly fd: number | undefined;
  /** The bytes of a buffer source. */
  readonly bytes: Uint8Array | undefined;
  /** Fills `target` from `position` on; returns the bytes read (fewer only at the end). */
  read(target: Uint8Array, position: number): Promise<number>;
  /**
   * Remote sources: fills many ranges (each within the source) at once, merging them into few
   * requests. Its presence says that every read is a round trip (a request, a Blob slice), so
   * executors read only what they need, never whole regions.
   */
  readMany?(reads: readonly { position: number; target: Uint8Array }[]): Promise<void>;
  /**
   * Says that no byte at or after `position` will be read again. A temp copy frees them, so that
   * what the run writes next reuses that memory; absent where there is nothing to free.
   */
  release?(position: number): void;
  close(): Promise<void>;
}

class BufferSource implements ByteSource {
  readonly fd = undefined;

  constructor(
    readonly label: string,
    readonly bytes: Uint8Array,
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

  async close(): Promise<void> {}
}

export function bufferSource(bytes: Uint8Array, label = 'buffer'): ByteSource {
  return new BufferSource(label, bytes);
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
