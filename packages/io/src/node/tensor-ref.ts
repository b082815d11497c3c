import { statSync } from 'node:fs';
import { isHttpUrl } from '../remote/http-source.js';
import { parseUrlRef, resolveTensorRef, type TensorRef } from '../tensor-ref.js';

/** Anything that can be opened for reading as a file: regular files, devices, named pipes. */
export function isOpenable(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Splits `file.npz:NAME` (URLs: `https://host/model.safetensors:NAME`, see parseUrlRef) / `file.safetensors:NAME` / `file.npy` against the file system: the whole
 * reference when it exists, else the longest existing prefix before a ':' (see resolveTensorRef).
 */
export function resolveTensorRefOnDisk(ref: string): TensorRef {
  if (isHttpUrl(ref)) return parseUrlRef(ref);
  return resolveTensorRef(ref, isOpenable);
}
