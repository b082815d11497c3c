// Tensor files by extension. Each format's file code sits in its own module; this is the only
// place that picks one.

import type { Tensor } from '@tensorops/core';
import { encodeNpyChunks } from '../npy.js';
import { fileError } from './errors.js';
import { readNpyFile } from './npy-file.js';
import { writeFileAtomic } from './write.js';

/** Reads a tensor file. Today: .npy (any other extension is read as .npy and must carry its magic). */
export function readTensorFile(path: string): Promise<Tensor> {
  return readNpyFile(path);
}

/**
 * Writes a tensor atomically as .npy. The dtype and data length are validated before any file is
 * created; the data goes out straight from the tensor, without an extra copy.
 */
export async function writeTensorFile(path: string, tensor: Tensor): Promise<void> {
  let chunks: Uint8Array[];
  try {
    chunks = encodeNpyChunks(tensor);
  } catch (cause) {
    throw fileError(path, 'write', cause);
  }
  await writeFileAtomic(path, chunks);
}
