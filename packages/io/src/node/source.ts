// Files on disk as byte sources (see ../file/source.ts): an open file handle, or the bytes of a
// pipe or device read as far as its header declares.

import type { InputFormat } from '../convert.js';
import type { FileDescriptor, InPlaceReader } from '../file/capabilities.js';
import { type ByteSource, bufferSource } from '../file/source.js';
import { closeFd, fstatFd, openFd } from './fs-calls.js';
import { readInPlace, readInto } from './read.js';
import { readDeclaredFromDescriptor } from './read-declared.js';

class FileSource implements ByteSource, FileDescriptor, InPlaceReader {
  private closed = false;

  constructor(
    readonly label: string,
    readonly size: number,
    readonly fd: number,
  ) {}

  read(target: Uint8Array, position: number): Promise<number> {
    return readInto(this.fd, target, position);
  }

  readInPlace(target: Uint8Array, position: number): number {
    return readInPlace(this.fd, target, position);
  }

  /** Once only: a second close could close a descriptor number reused by then. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return closeFd(this.fd);
  }
}

/**
 * Opens `path` for random access. A pipe or device (`/dev/stdin`, `<(cmd)`) has no size and
 * cannot seek: the tensor file on it (of `format`, else by its magic bytes) is read into a buffer
 * source as far as its header declares, and no further. `label` names it in messages.
 */
export async function openSource(
  path: string,
  format?: InputFormat,
  label = path,
): Promise<ByteSource> {
  const fd = await openFd(path, 'r');
  let stat: Awaited<ReturnType<typeof fstatFd>>;
  try {
    stat = await fstatFd(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  } catch (error) {
    await closeFd(fd).catch(() => {});
    throw error;
  }
  if (stat.isFile()) return new FileSource(label, stat.size, fd);
  return bufferSource(await readDeclaredFromDescriptor(fd, label, format), label);
}
