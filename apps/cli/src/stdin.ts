// Standard input as what it is. A regular file (`tensorops gather - i.npy < data.npy`) is that
// file: reopened by path and read by ranges like a file argument, never copied whole. Anything
// else (a pipe, a terminal) is a stream, read once.

import { fstatSync, readFileSync } from 'node:fs';
import type { CliIO } from './cli-io.js';

/**
 * A path that opens the regular file on stdin from its first byte, or undefined when stdin is not
 * a regular file, is not the process's descriptor 0, or has been read from already (the tensor
 * then starts where the reader stopped, which a new handle would not see). Linux tells the offset
 * in /proc/self/fdinfo; elsewhere stdin is streamed.
 */
export function stdinFilePath(io: CliIO): string | undefined {
  if (io.stdinFd === undefined) return undefined;
  try {
    if (!fstatSync(io.stdinFd).isFile()) return undefined;
    const info = readFileSync(`/proc/self/fdinfo/${io.stdinFd}`, 'utf8');
    return /^pos:\s*0$/m.test(info) ? `/proc/self/fd/${io.stdinFd}` : undefined;
  } catch {
    return undefined;
  }
}
