import type { Tensor } from '@tensorops/core';
import { decodeNpy } from '@tensorops/io';
import { readStream, readTensorFile } from '@tensorops/io/node';
import { isStdio, usageError } from './args.js';
import type { CliIO } from './cli-io.js';

/** Loads a tensor reference from the command line: a file path, or `-` for .npy bytes on stdin. */
export async function loadTensor(ref: string, io: CliIO): Promise<Tensor> {
  if (isStdio(ref)) return decodeNpy(await readStream(io.stdin));
  return readTensorFile(ref);
}

/** Loads several references; stdin holds one tensor, so `-` may appear once. */
export async function loadInputs<const Refs extends readonly string[]>(
  refs: Refs,
  io: CliIO,
): Promise<{ [K in keyof Refs]: Tensor }> {
  if (refs.filter(isStdio).length > 1)
    throw usageError('standard input (-) can be used for one input only');
  const tensors: Tensor[] = [];
  for (const ref of refs) tensors.push(await loadTensor(ref, io));
  return tensors as { [K in keyof Refs]: Tensor };
}
