// File-system failures become one-line TensorOpsErrors that name the path; the original error stays
// reachable as `cause` (the CLI checks cause.code for EPIPE, debugging wants the stack).

import { isTensorOpsError, TensorOpsError } from '@tensorops/core';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
  EMFILE: 'too many open files',
  EPIPE: 'broken pipe',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  EBADF: 'the descriptor is closed',
  ELOOP: 'too many levels of symbolic links',
  ENXIO: 'no reader or device',
};

function reason(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return REASONS[code] ?? code;
    return cause.message.split('\n', 1)[0] ?? cause.name;
  }
  return String(cause).split('\n', 1)[0] ?? 'unknown error';
}

/** `out.npy: cannot write: no such file or directory` (E_IO, with the original as cause). */
export function ioError(path: string, action: string, cause: unknown): TensorOpsError {
  return new TensorOpsError('E_IO', `${path}: cannot ${action}: ${reason(cause)}`, { cause });
}

/**
 * Decoding errors keep their code and gain the path; anything else is an I/O failure.
 * Already-prefixed errors pass through unchanged, and so does an index out of range (an op found
 * it while producing the bytes being written or read: it names its place in the indices, and is
 * no fault of the file).
 */
export function fileError(path: string, action: string, cause: unknown): TensorOpsError {
  if (isTensorOpsError(cause)) {
    if (cause.code === 'E_INDEX_RANGE' || cause.message.startsWith(`${path}: `)) return cause;
    return new TensorOpsError(cause.code, `${path}: ${cause.message}`, { cause });
  }
  return ioError(path, action, cause);
}
