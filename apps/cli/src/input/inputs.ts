import type { Tensor } from '@tensorops/core';
import {
  type NpyOnStream,
  openNpyStream,
  openTensorFile,
  resolveTensorRefOnDisk,
  type StoredTensor,
  type TensorFile,
} from '@tensorops/io/node';
import { canReadMany, rangeReadable } from '@tensorops/io/node/internal';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';
import type { CliIO } from '../run/cli-io.js';
import { openOptions } from './remote.js';
import { stdinFilePath, stdinPipeFd } from './stdin.js';
import { pickTensor } from './tensor-names.js';

/**
 * Loads a tensor reference from the command line: `file.npy`, `file.npz:NAME`,
 * `file.safetensors:NAME` (`:NAME` may be left out when the file holds one tensor), or `-` for
 * .npy bytes on stdin. The format follows the extension (magic bytes for other names).
 */
export async function loadTensor(ref: string, io: CliIO): Promise<Tensor> {
  const opened = await openRef(ref, io);
  if ('npy' in opened) return readWhole(opened.npy);
  const { file, name } = opened;
  try {
    return await file.read(pickTensor(file, name));
  } finally {
    await file.close().catch(() => {});
  }
}

type Opened =
  | { readonly file: TensorFile; readonly name?: string | undefined }
  | { readonly npy: NpyOnStream };

/**
 * The file a reference names and the tensor name in it. On stdin: the regular file it is, or
 * the .npy on a pipe, its header read and its data left on the pipe (`copyAhead`: see
 * openNpyStream).
 */
async function openRef(ref: string, io: CliIO, copyAhead = false): Promise<Opened> {
  if (!isStdio(ref)) {
    const { path, name } = resolveTensorRefOnDisk(ref);
    return { file: await openTensorFile(path, openOptions(name, io)), name };
  }
  const path = stdinFilePath(io);
  if (path !== undefined) return { file: await openTensorFile(path, { label: 'stdin' }) };
  return { npy: await openNpyStream(stdinPipeFd(io) ?? io.stdin, 'stdin', { copyAhead }) };
}

/** The data of a .npy on a pipe, read once into one buffer of the declared size. */
async function readWhole(npy: NpyOnStream): Promise<Tensor> {
  try {
    return await npy.readTensor();
  } finally {
    await npy.close();
  }
}

/** Loads several references (with `load`); stdin holds one tensor, so `-` may appear once. */
export async function loadInputs<const Refs extends readonly string[]>(
  refs: Refs,
  io: CliIO,
  load: (ref: string, io: CliIO) => Promise<Tensor> = loadTensor,
): Promise<{ [K in keyof Refs]: Tensor }> {
  if (refs.filter(isStdio).length > 1)
    throw usageError('standard input (-) can be used for one input only');
  const tensors: Tensor[] = [];
  for (const ref of refs) tensors.push(await load(ref, io));
  return tensors as { [K in keyof Refs]: Tensor };
}

/**
 * Data tensors at least this large are not loaded: ops that can (gather) read only the byte
 * ranges they need from the file. Below it one sequential read costs less than the bookkeeping,
 * and .npz members get their CRC checked (ranged reads cannot check a whole-member CRC).
 */
export const RANGED_INPUT_BYTES = 64 << 20;

/**
 * A data input: in memory, an open file an executor reads ranges from, or a .npy on a pipe whose
 * data an executor reads once, in order (the caller closes the file or the pipe).
 */
export type DataInput =
  | { readonly kind: 'tensor'; readonly tensor: Tensor }
  | { readonly kind: 'file'; readonly file: TensorFile; readonly stored: StoredTensor }
  | { readonly kind: 'pipe'; readonly npy: NpyOnStream };

/**
 * Like {@link loadTensor}, but leaves a large uncompressed tensor in its file or on its pipe (see
 * {@link RANGED_INPUT_BYTES}); small, compressed or Fortran-order tensors are loaded.
 */
export async function openDataInput(
  ref: string,
  io: CliIO,
  minBytes: number = RANGED_INPUT_BYTES,
): Promise<DataInput> {
  // A large piped .npy may be copied to a temp file for the gather (gatherFromPipe).
  const opened = await openRef(ref, io, true);
  if ('npy' in opened) {
    const { npy } = opened;
    if (npy.header.nbytes >= minBytes) return { kind: 'pipe', npy };
    return { kind: 'tensor', tensor: await readWhole(npy) };
  }
  const { file, name } = opened;
  try {
    const stored = pickTensor(file, name);
    const ranged =
      // A quantized tensor is gathered by whole rows, whatever its size: only the rows it needs
      // are read and dequantized.
      stored.quantized !== undefined ||
      (stored.dtype !== undefined &&
        // Over the network only the ranges a gather needs are fetched, however small the tensor:
        // a file read by batches of ranges is one whose every read is a round trip.
        (stored.nbytes >= minBytes || canReadMany(file)) &&
        rangeReadable(stored));
    if (ranged) return { kind: 'file', file, stored };
    const tensor = await file.read(stored);
    await file.close();
    return { kind: 'tensor', tensor };
  } catch (error) {
    await file.close().catch(() => {});
    throw error;
  }
}
