// Standard input as what it is. A regular file (`tensorops gather - i.npy < data.npy`) is that
// file: reopened by path and read by ranges like a file argument, never copied whole. Anything
// else (a pipe, a terminal) is a stream, read once; a pipe in blocking mode is read by read(2)
// straight into the reader's buffers.

import { fstatSync, readFileSync } from 'node:fs';
import type { CliIO } from '../run/cli-io.js';

/** O_NONBLOCK in the octal `flags:` of /proc/self/fdinfo (Linux, every architecture but alpha/sparc/parisc). */
const O_NONBLOCK = 0o4000;

/** /proc/self/fdinfo of the stdin descriptor, or undefined where there is none to read. */
function stdinInfo(io: CliIO): { fd: number; info: string } | undefined {
  if (io.stdinFd === undefined) return undefined;
  try {
    return { fd: io.stdinFd, info: readFileSync(`/proc/self/fdinfo/${io.stdinFd}`, 'utf8') };
  } catch {
    return undefined;
  }
}

/**
 * A path that opens the regular file on stdin from its first byte, or undefined when stdin is not
 * a regular file, is not the process's descriptor 0, or has been read from already (the tensor
 * then starts where the reader stopped, which a new handle would not see). Linux tells the offset
 * in /proc/self/fdinfo; elsewhere stdin is streamed.
 */
export function stdinFilePath(io: CliIO): string | undefined {
  const stdin = stdinInfo(io);
  if (stdin === undefined) return undefined;
  try {
    if (!fstatSync(stdin.fd).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return /^pos:\s*0$/m.test(stdin.info) ? `/proc/self/fd/${stdin.fd}` : undefined;
}

/**
 * The stdin descriptor when it is a pipe or socket in blocking mode, which read(2) can fill the
 * reader's own buffers from; undefined otherwise (non-blocking, a terminal, no /proc): then stdin
 * is read as a stream.
 */
export function stdinPipeFd(io: CliIO): number | undefined {
  const stdin = stdinInfo(io);
  const flags = stdin && /^flags:\s*([0-7]+)$/m.exec(stdin.info)?.[1];
  if (stdin === undefined || flags === undefined || (Number.parseInt(flags, 8) & O_NONBLOCK) !== 0)
    return undefined;
  try {
    const stat = fstatSync(stdin.fd);
    return stat.isFIFO() || stat.isSocket() ? stdin.fd : undefined;
  } catch {
    return undefined;
  }
}
