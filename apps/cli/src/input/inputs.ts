import { isTensorOpsError, type Tensor, TensorOpsError } from '@tensorops/core';
import { type FittedSlice, type Slice, sliceOfStored, sliceOfTensor } from '@tensorops/io';
import {
  collectStream,
  type NpyOnStream,
  openNpyStream,
  openTensorBytes,
  openTensorFile,
  readDeclaredBytes,
  resolveTensorRefOnDisk,
  type StoredTensor,
  type TensorFile,
} from '@tensorops/io/node';
import { canReadMany, openTensorHeader, rangeReadable } from '@tensorops/io/node/internal';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';
import type { CliIO } from '../run/cli-io.js';
import { openOptions } from './remote.js';
import { fitted, isStdinRef, nameAndSlice, type SlicedRef, splitSlicedRef } from './sliced-ref.js';
import { stdinFilePath, stdinPipeFd } from './stdin.js';
import { pickTensor } from './tensor-names.js';

/** What part of an input to read: `--slice` as typed, and `--head N` (`[:N]` after it). */
export interface InputPart {
  readonly slice?: unknown;
  readonly head?: number | undefined;
}

/**
 * Loads a tensor reference from the command line: `file.npy`, `file.npz:NAME`,
 * `file.safetensors:NAME` (`:NAME` may be left out when the file holds one tensor), or `-` for
 * .npy bytes on stdin, each with an optional slice (see sliced-ref.ts). The format follows the
 * extension (magic bytes for other names).
 */
export async function loadTensor(ref: string, io: CliIO, part: InputPart = {}): Promise<Tensor> {
  const opened = await openRef(ref, io, part.slice);
  if ('npy' in opened) {
    const tensor = await readWhole(opened.npy);
    const picks = fittedOrThrow('stdin', tensor.shape, opened.slice, part.head);
    return picks === undefined ? tensor : sliceOfTensor(tensor, picks);
  }
  const { file, name, slice } = opened;
  try {
    const stored = pickTensor(file, name);
    const picks = fittedOrThrow(file.path, stored.shape, slice, part.head);
    if (picks === undefined) return await file.read(stored);
    return await collectStream(sliceOfStored(file, stored, picks));
  } finally {
    await file.close().catch(() => {});
  }
}

type Opened =
  | {
      readonly file: TensorFile;
      readonly name?: string | undefined;
      readonly slice?: Slice | undefined;
    }
  | { readonly npy: NpyOnStream; readonly slice?: Slice | undefined };

/**
 * The file a reference names, the tensor name in it and the slice. On stdin: the regular file it
 * is, or the .npy on a pipe, its header read and its data left on the pipe (`copyAhead`: see
 * openNpyStream).
 */
async function openRef(
  ref: string,
  io: CliIO,
  sliceFlag: unknown,
  copyAhead = false,
): Promise<Opened> {
  const sliced = splitSlicedRef(ref, sliceFlag);
  if (!isStdio(sliced.ref)) return openSlicedFile(sliced, io);
  const { slice } = sliced;
  const path = stdinFilePath(io);
  if (path !== undefined) return { file: await openTensorFile(path, { label: 'stdin' }), slice };
  const npy = await openNpyStream(stdinPipeFd(io) ?? io.stdin, 'stdin', { copyAhead });
  return { npy, slice };
}

/** Opens the file of a (non-stdin) reference; see {@link splitSlicedRef} for its slice. */
export async function openSlicedRef(
  ref: string,
  io: CliIO,
  sliceFlag: unknown,
): Promise<{ file: TensorFile; name: string | undefined; slice: Slice | undefined }> {
  return openSlicedFile(splitSlicedRef(ref, sliceFlag), io);
}

async function openSlicedFile(
  sliced: SlicedRef,
  io: CliIO,
): Promise<{ file: TensorFile; name: string | undefined; slice: Slice | undefined }> {
  const { path, name } = resolveTensorRefOnDisk(sliced.ref);
  let file: TensorFile;
  try {
    file = await openTensorFile(path, openOptions(name, io));
  } catch (error) {
    const notFound = isTensorOpsError(error) && error.code === 'E_TENSOR_NOT_FOUND';
    if (sliced.text === undefined || !notFound) throw error;
    // A sharded checkpoint opens for one name, and a name may end in a bracket group itself.
    const whole = resolveTensorRefOnDisk(sliced.typed);
    const retried = await openTensorFile(whole.path, openOptions(whole.name, io)).catch(() => {
      throw error;
    });
    return { file: retried, name: whole.name, slice: undefined };
  }
  return { file, ...nameAndSlice(file, name, sliced) };
}

/** {@link fitted}, its errors naming the input `label`. */
export function fittedOrThrow(
  label: string,
  shape: readonly number[],
  slice: Slice | undefined,
  head: number | undefined,
): FittedSlice | undefined {
  try {
    return fitted(shape, slice, head);
  } catch (error) {
    if (!isTensorOpsError(error) || error.code === 'E_USAGE') throw error;
    throw new TensorOpsError(error.code, `${label}: ${error.message}`, { cause: error });
  }
}

/**
 * The tensor file on stdin, whatever its format: a regular file by path (read by range); a pipe
 * from its header alone, or with `data` as far as its header declares (within the stream limit
 * of readDeclaredBytes). A .npz on a pipe, whose directory is at its end, is read whole.
 */
export async function openStdinFile(io: CliIO, data: boolean): Promise<TensorFile> {
  const path = stdinFilePath(io);
  if (path !== undefined) return openTensorFile(path, { label: 'stdin' });
  try {
    if (!data) return await openTensorHeader(io.stdin, 'stdin');
    return await openTensorBytes(await readDeclaredBytes(io.stdin, 'stdin'), 'stdin');
  } catch (error) {
    // The first bytes' errors name no input: they gain the name here.
    if (!isTensorOpsError(error) || error.message.startsWith('stdin')) throw error;
    throw new TensorOpsError(error.code, `stdin: ${error.message}`, { cause: error });
  }
}

/** The data of a .npy on a pipe, read once into one buffer of the declared size. */
async function readWhole(npy: NpyOnStream): Promise<Tensor> {
  try {
    return await npy.readTensor();
  } finally {
    await npy.close();
  }
}

/** The whole tensor of a data input (see {@link openDataInput}), its file or pipe closed. */
export async function loadDataInput(input: DataInput): Promise<Tensor> {
  if (input.kind === 'tensor') return input.tensor;
  if (input.kind === 'pipe') return readWhole(input.npy);
  try {
    return await input.file.read(input.stored);
  } finally {
    await input.file.close();
  }
}

/** Loads several references (with `load`); stdin holds one tensor, so `-` may appear once. */
export async function loadInputs<const Refs extends readonly string[]>(
  refs: Refs,
  io: CliIO,
  load: (ref: string, io: CliIO) => Promise<Tensor> = loadTensor,
): Promise<{ [K in keyof Refs]: Tensor }> {
  if (refs.filter(isStdinRef).length > 1)
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
  sliceFlag?: unknown,
  minBytes: number = RANGED_INPUT_BYTES,
): Promise<DataInput> {
  // A large piped .npy may be copied to a temp file for the gather (gatherFromPipe).
  const opened = await openRef(ref, io, sliceFlag, true);
  if ('npy' in opened) {
    const { npy } = opened;
    if (npy.header.nbytes >= minBytes && opened.slice === undefined) return { kind: 'pipe', npy };
    const tensor = await readWhole(npy);
    const picks = fittedOrThrow('stdin', tensor.shape, opened.slice, undefined);
    return { kind: 'tensor', tensor: picks === undefined ? tensor : sliceOfTensor(tensor, picks) };
  }
  const { file, name, slice } = opened;
  try {
    const stored = pickTensor(file, name);
    const picks = fittedOrThrow(file.path, stored.shape, slice, undefined);
    // A slice is read into memory: its bytes are what the gather works on.
    const ranged =
      picks === undefined &&
      // A quantized tensor is gathered by whole rows, whatever its size: only the rows it needs
      // are read and dequantized.
      (stored.quantized !== undefined ||
        (stored.dtype !== undefined &&
          // Over the network only the ranges a gather needs are fetched, however small the
          // tensor: a file read by batches of ranges is one whose every read is a round trip.
          (stored.nbytes >= minBytes || canReadMany(file)) &&
          rangeReadable(stored)));
    if (ranged) return { kind: 'file', file, stored };
    const tensor =
      picks === undefined
        ? await file.read(stored)
        : await collectStream(sliceOfStored(file, stored, picks));
    await file.close();
    return { kind: 'tensor', tensor };
  } catch (error) {
    await file.close().catch(() => {});
    throw error;
  }
}
