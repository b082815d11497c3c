// Random access to the bytes of a tensor file: an open file handle, or a buffer for inputs that
// cannot seek (pipes, process substitution) and for tests.

import { type FileHandle, open } from 'node:fs/promises';
import { TensorOpsError } from '@tensorops/core';
import type { TensorFormat } from '../convert.js';
import { readInto } from './read.js';
import { readDeclaredBytes } from './read-declared.js';

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
   * requests. Its presence says that every read is a network round trip.
   */
  readMany?(reads: readonly { position: number; target: Uint8Array }[]): Promise<void>;
  close(): Promise<void>;
}

class FileSource implements ByteSource {
  readonly bytes = undefined;

  constructor(
    readonly label: string,
    readonly size: number,
    private readonly fh: FileHandle,
  ) {}

  get fd(): number {
    return this.fh.fd;
  }

  read(target: Uint8Array, position: number): Promise<number> {
    return readInto(this.fh, target, position);
  }

  close(): Promise<void> {
    return this.fh.close();
  }
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

/**
 * Opens `path` for random access. A pipe or device (`/dev/stdin`, `<(cmd)`) has no size and
 * cannot seek: the tensor file on it (of `format`, else by its magic bytes) is read into a buffer
 * source as far as its header declares, and no further. `label` names it in messages.
 */
export async function openSource(
  path: string,
  format?: TensorFormat,
  label = path,
): Promise<ByteSource> {
  const fh = await open(path, 'r');
  try {
    const stat = await fh.stat();
    if (stat.isFile()) return new FileSource(label, stat.size, fh);
    if (stat.isDirectory()) {
      throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    }
    const bytes = await readDeclaredBytes(fh.createReadStream({ autoClose: false }), label, format);
    await fh.close();
    return new BufferSource(label, bytes);
  } catch (error) {
    await fh.close().catch(() => {});
    throw error;
  }
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
