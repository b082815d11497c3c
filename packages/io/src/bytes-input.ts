// The decoders take a file's bytes as a Uint8Array (a Buffer is one). Anything else (a string, an
// ArrayBuffer, an array of numbers) would be read as something it is not, or fail deep inside
// with an engine's TypeError: it is refused first, naming the function and what it was given.

import { TensorOpsError } from '@tensorops/core';
import { describeValue } from '@tensorops/core/internal';

/** Throws E_DTYPE unless `bytes`, the argument `name` of `fn`, is a Uint8Array. */
export function checkBytes(
  bytes: unknown,
  fn: string,
  name = 'bytes',
): asserts bytes is Uint8Array {
  if (bytes instanceof Uint8Array) return;
  const kind = describeValue(bytes);
  const hint =
    kind === 'ArrayBuffer' || kind === 'SharedArrayBuffer'
      ? ' (view it: new Uint8Array(buffer))'
      : ArrayBuffer.isView(bytes)
        ? ' (view its bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength))'
        : '';
  throw new TensorOpsError(
    'E_DTYPE',
    `${fn}: ${name} must be a Uint8Array of the file's bytes, got ${kind}${hint}`,
  );
}
