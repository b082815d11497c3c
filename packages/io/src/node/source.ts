// Files on disk as byte sources (see ../file/source.ts): an open file handle, or the bytes of a
// pipe or device read as far as its header declares.

import { type FileHandle, open } from 'node:fs/promises';
import type { TensorFormat } from '../convert.js';
import { type ByteSource, bufferSource } from '../file/source.js';
import { readInto, readIntoSync } from './read.js';
import { readDeclaredBytes } from './read-declared.js';

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

  readSync(target: Uint8Array, position: number): number {
    return readIntoSync(this.fh.fd, target, position);
  }

  close(): Promise<void> {
    return this.fh.close();
  }
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
    return bufferSource(bytes, label);
  } catch (error) {
    await fh.close().catch(() => {});
    throw error;
  }
}
