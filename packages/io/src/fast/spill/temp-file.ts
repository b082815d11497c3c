// The temp file of a spill: created in the temp folder, open for reading and writing, and
// unlinked the moment it exists, so that nothing is left behind whatever ends the process.

import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ioError } from '../../file/errors.js';

/** A new temp file in `dir` holding `headerBytes`, open for reading and writing, unlinked. */
export function tempCopy(dir: string, headerBytes: Uint8Array): number {
  const fd = openUnlinkedTemp(dir);
  try {
    writeAll(fd, headerBytes, dir);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** {@link tempCopy}, or undefined where `dir` cannot hold one. */
export function tempCopyOrUndefined(dir: string, headerBytes: Uint8Array): number | undefined {
  try {
    return tempCopy(dir, headerBytes);
  } catch {
    return undefined;
  }
}

/** A new temp file in `dir`, open for reading and writing and already unlinked. */
function openUnlinkedTemp(dir: string): number {
  const path = join(dir, `.tensorops-${process.pid}-${Math.random().toString(36).slice(2)}.npy`);
  let fd: number;
  try {
    fd = openSync(path, 'wx+', 0o600);
  } catch (cause) {
    throw ioError(dir, 'write', cause);
  }
  try {
    unlinkSync(path);
  } catch (cause) {
    closeSync(fd);
    throw ioError(dir, 'write', cause);
  }
  return fd;
}

/** Writes all of `bytes` to `fd` at its offset; a failure is told as writing the temp folder. */
export function writeAll(fd: number, bytes: Uint8Array, dir: string): void {
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (cause) {
    throw ioError(dir, 'write', cause);
  }
}
