// .npz naming rules, shared by the Node reader and writer (the zip container itself is yauzl's and
// yazl's job). An .npz is a zip of NAME.npy members: np.load(f)['NAME'] reads member NAME.npy.

import { TensorOpsError } from '@tensorops/core';
import { quote } from './text.js';

const SUFFIX = '.npy';

/**
 * deflate cannot expand data by more than about 1032:1 (a 258-byte match costs at least 2 bits).
 * A member declaring a larger uncompressed size than that allows is lying, whatever it inflates to.
 */
export const DEFLATE_MAX_RATIO = 1032;

/** The tensor name of a member (`layer/0/w.npy` -> `layer/0/w`); refuses anything but NAME.npy. */
export function npzTensorName(memberName: string): string {
  if (memberName.endsWith('/')) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(memberName)} is a directory; an .npz holds only NAME.npy members`,
    );
  }
  if (!memberName.endsWith(SUFFIX) || memberName.length === SUFFIX.length) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(memberName)} is not a NAME.npy member (np.load would not return it as an array)`,
    );
  }
  return memberName.slice(0, -SUFFIX.length);
}

/**
 * The member name for a tensor. Refused: names that a zip reader would rewrite or reject (a
 * backslash, a leading '/', '..' segments, a trailing '/'), which could not come back unchanged.
 */
export function npzMemberName(tensorName: string): string {
  const why =
    tensorName === ''
      ? 'it is empty'
      : tensorName.includes('\\')
        ? 'zip readers turn \\ into /'
        : tensorName.startsWith('/') || /^[a-zA-Z]:/.test(tensorName)
          ? 'zip member names must be relative'
          : tensorName.split('/').includes('..')
            ? "zip member names must not contain '..' segments"
            : tensorName.endsWith('/')
              ? 'a trailing / makes a directory entry'
              : tensorName.includes('\u0000')
                ? 'it contains a NUL character'
                : undefined;
  if (why !== undefined) {
    throw new TensorOpsError(
      'E_VALUE',
      `.npz cannot store a tensor named ${quote(tensorName)}: ${why}`,
    );
  }
  const member = tensorName + SUFFIX;
  if (new TextEncoder().encode(member).length > 0xffff) {
    throw new TensorOpsError('E_VALUE', `.npz tensor name is longer than a zip entry name can be`);
  }
  return member;
}

/** Throws unless a deflate member's declared size is reachable from its compressed size. */
export function checkDeflateRatio(
  memberName: string,
  compressed: number,
  uncompressed: number,
): void {
  if (uncompressed > compressed * DEFLATE_MAX_RATIO + 1024) {
    throw new TensorOpsError(
      'E_FORMAT',
      `.npz member ${quote(memberName)} declares ${uncompressed} bytes from ${compressed} deflate bytes, more than deflate can produce (at most ${DEFLATE_MAX_RATIO}:1)`,
    );
  }
}
