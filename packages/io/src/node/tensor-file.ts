// Tensor files by format. This is the only place that picks one: by extension (.npy, .npz,
// .safetensors, .gguf), else by the first bytes. Each format's file code sits in its own module.

import { checkTensor, type Dtype, type Tensor, TensorOpsError } from '@tensorops/core';
import {
  formatOfPath,
  type InputFormat,
  inputFormatOfPath,
  storedDtype,
  type TensorFormat,
} from '../convert.js';
import { fileError } from '../file/errors.js';
import { ggufReader } from '../file/gguf-file.js';
import { npyReader } from '../file/npy-file.js';
import { type FormatReaders, openTensorSource } from '../file/open.js';
import { type OpenUrlOptions, openUrlWith } from '../file/open-url.js';
import { safetensorsReader } from '../file/safetensors-file.js';
import { type ByteSource, bufferSource, headerSource } from '../file/source.js';
import type { StoredTensor, TensorFile } from '../file/stored.js';
import {
  checkedChunks,
  isTensorStream,
  streamOfTensor,
  type TensorStream,
  widenStream,
} from '../file/tensor-stream.js';
import { torchReader } from '../file/torch-file.js';
import { encodeNpyHeader } from '../npy.js';
import { npzMemberName } from '../npz.js';
import { isHttpUrl } from '../remote/http-source.js';
import { planSafetensors } from '../safetensors.js';
import { isShardIndexPath } from '../shard-index.js';
import { quote } from '../text.js';
import { npzChunks, npzReader } from './npz-file.js';
import { readDeclaredHeader } from './read-declared.js';
import { openShardIndexFile } from './shard-index-file.js';
import { openSource } from './source.js';
import { writeOutputPath } from './write-target.js';

const READERS: FormatReaders = {
  npy: npyReader,
  npz: npzReader,
  safetensors: safetensorsReader,
  torch: torchReader,
  gguf: ggufReader,
};

function openFrom(source: ByteSource, format: InputFormat | undefined): Promise<TensorFile> {
  return openTensorSource(source, format, READERS);
}

export interface OpenTensorFileOptions extends OpenUrlOptions {
  /** Names the file in messages instead of `path`. */
  readonly label?: string | undefined;
}

/**
 * Opens a tensor file and reads its header (or zip directory) only; tensors are read on demand.
 * The format comes from the extension, else from the magic bytes. Pipes and devices are read
 * first, as far as their header declares (see readDeclaredBytes). A `*.safetensors.index.json`
 * opens the sharded checkpoint it describes as one file (the headers of its shards; see
 * `options.tensor`). Errors name the path, or `options.label` (say `stdin` for
 * `/proc/self/fd/0`). Close the file when done.
 */
export async function openTensorFile(
  path: string,
  options: OpenTensorFileOptions = {},
): Promise<TensorFile> {
  if (isHttpUrl(path)) return openUrlWith(path, options, READERS);
  if (isShardIndexPath(path)) return openShardIndexFile(path, options.tensor);
  const label = options.label ?? path;
  let source: ByteSource;
  try {
    source = await openSource(path, inputFormatOfPath(label), label);
  } catch (cause) {
    throw fileError(label, 'read', cause);
  }
  return openFrom(source, inputFormatOfPath(label));
}

/** {@link openTensorFile} over bytes already in memory (`label` names them in messages). */
export function openTensorBytes(
  bytes: Uint8Array,
  label: string,
  format?: InputFormat,
): Promise<TensorFile> {
  return openFrom(bufferSource(bytes, label), format ?? inputFormatOfPath(label));
}

/**
 * The tensor file on a stream (stdin, a pipe) opened from its header alone: its tensors are
 * listed, its data is never read (reading a tensor is an E_IO error), so a file of any size costs
 * its header. A .npz, whose directory is at its end, is read whole within the stream limit.
 */
export async function openTensorHeader(
  stream: AsyncIterable<Uint8Array | string>,
  label: string,
): Promise<TensorFile> {
  const { head, size, format } = await readDeclaredHeader(stream, label);
  return openFrom(headerSource(head, size, label), format);
}

/** What `inspect` shows: the header of every tensor, the file's metadata. Reads no tensor data. */
export interface TensorFileInfo {
  readonly path: string;
  readonly format: InputFormat;
  readonly size: number;
  readonly tensors: readonly StoredTensor[];
  readonly metadata: Readonly<Record<string, string>> | null;
}

export async function inspectTensorFile(path: string): Promise<TensorFileInfo> {
  const file = await openTensorFile(path);
  await file.close();
  const { format, size, tensors, metadata } = file;
  return { path, format, size, tensors, metadata };
}

/**
 * Reads one tensor: `name` picks it in an .npz / .safetensors file and may be left out when the
 * file holds exactly one. Any extension other than .npz / .safetensors is read as .npy (magic
 * bytes decide for unknown extensions).
 */
export async function readTensorFile(path: string, name?: string): Promise<Tensor> {
  const file = await openTensorFile(path);
  try {
    return await file.read(file.get(name));
  } finally {
    await file.close().catch(() => {});
  }
}

/** Something a writer may be asked to note: a conversion it made, or data it had no room for. */
export type WriteNote =
  | { readonly kind: 'widened'; readonly name: string; readonly from: Dtype; readonly to: Dtype }
  | { readonly kind: 'metadata-dropped'; readonly keys: number; readonly format: TensorFormat };

export interface NamedTensorData {
  readonly name: string;
  readonly data: Tensor | TensorStream;
}

export interface WriteOptions {
  /** Overrides the format the extension implies (default .npy for other extensions). */
  readonly format?: TensorFormat;
  /** .safetensors `__metadata__`; other formats have no place for it (a note says so). */
  readonly metadata?: Readonly<Record<string, string>> | null;
  /** Deflate .npz members (np.savez_compressed). Default: stored, like np.savez. */
  readonly compress?: boolean;
  /**
   * Store bfloat16 / float8 as float32 where the format lacks them (.npy, .npz): exact, and
   * reported as a 'widened' note. Default false: such tensors are refused.
   */
  readonly widen?: boolean;
}

/** numpy's NPY_MAXDIMS: a .npy header of more dimensions cannot be read back by numpy. */
export const NPY_MAX_DIMS = 64;

/** The bytes of a tensor file, produced on demand, and the notes the encoding made. */
export interface EncodedTensors {
  readonly chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  readonly notes: readonly WriteNote[];
}

/**
 * Encodes tensors as one file of `format`, validating everything before the first byte: dtypes
 * the format cannot store exactly are refused, bfloat16 / float8 go to .npy / .npz as float32
 * with `widen` (exact; reported as a 'widened' note), names and ranks are checked. Data flows in
 * chunks, so streams from large files never sit whole in memory. `label` prefixes errors.
 */
export async function encodeTensors(
  entries: readonly NamedTensorData[],
  format: TensorFormat,
  label: string,
  options: Omit<WriteOptions, 'format'> = {},
): Promise<EncodedTensors> {
  const notes: WriteNote[] = [];
  try {
    if (format === 'gguf') {
      throw new TensorOpsError('E_VALUE', 'tensorops reads .gguf files and does not write them');
    }
    if (format === 'npy' && entries.length !== 1) {
      throw new TensorOpsError(
        'E_VALUE',
        `a .npy file holds exactly one tensor, got ${entries.length}; write an .npz or .safetensors file`,
      );
    }
    const names = new Set<string>();
    const streams = entries.map(({ name, data }) => {
      if (names.has(name)) throw new TensorOpsError('E_VALUE', `two tensors named ${quote(name)}`);
      names.add(name);
      if (!isTensorStream(data)) checkTensor(data, `tensor ${quote(name)}`);
      if (format !== 'safetensors' && data.shape.length > NPY_MAX_DIMS) {
        throw new TensorOpsError(
          'E_SHAPE',
          `${format === 'npy' ? 'the result' : `tensor ${quote(name)}`} has ${data.shape.length} dimensions and numpy reads .${format} arrays of at most ${NPY_MAX_DIMS}`,
        );
      }
      const stream = isTensorStream(data) ? data : streamOfTensor(data);
      const to = storedDtype(stream.dtype, format, format === 'npy' ? undefined : name);
      if (to === stream.dtype) return stream;
      if (options.widen !== true) {
        throw new TensorOpsError(
          'E_DTYPE',
          `.${format} has no dtype for ${stream.dtype}; convert it to ${to} first (exact: pass widen: true)`,
        );
      }
      notes.push({ kind: 'widened', name, from: stream.dtype, to });
      return widenStream(stream);
    });
    const metadata = options.metadata ?? null;
    if (format !== 'safetensors' && metadata !== null && Object.keys(metadata).length > 0) {
      notes.push({ kind: 'metadata-dropped', keys: Object.keys(metadata).length, format });
    }
    if (format === 'npy') return { chunks: npyChunks(streams[0] as TensorStream, label), notes };
    if (format === 'safetensors') {
      return { chunks: safetensorsChunks(entries, streams, metadata, label), notes };
    }
    for (const { name } of entries) npzMemberName(name);
    const chunks = await npzChunks(
      entries.map((e, i) => ({ name: e.name, data: streams[i] as TensorStream })),
      { compress: options.compress === true },
    );
    return { chunks, notes };
  } catch (cause) {
    throw fileError(label, 'write', cause);
  }
}

/**
 * Encodes tensors (see {@link encodeTensors}) in the format of `path`'s extension (.npy for
 * others, or `options.format`) and writes them as {@link writeOutputPath} does: a regular file
 * atomically, a device or FIFO in place. Nothing is created when validation fails.
 */
export async function writeTensorsFile(
  path: string,
  entries: readonly NamedTensorData[],
  options: WriteOptions = {},
): Promise<WriteNote[]> {
  const format = options.format ?? formatOfPath(path) ?? 'npy';
  const { chunks, notes } = await encodeTensors(entries, format, path, options);
  await writeOutputPath(path, chunks);
  return [...notes];
}

async function* npyChunks(stream: TensorStream, path: string): AsyncIterable<Uint8Array> {
  yield encodeNpyHeader(stream);
  yield* checkedChunks(stream, path, { reuse: true });
}

function safetensorsChunks(
  entries: readonly NamedTensorData[],
  streams: readonly TensorStream[],
  metadata: Readonly<Record<string, string>> | null,
  path: string,
): AsyncIterable<Uint8Array> {
  const layout = planSafetensors(
    streams.map((s, i) => ({
      name: (entries[i] as NamedTensorData).name,
      dtype: s.dtype,
      shape: s.shape,
    })),
    metadata,
  );
  return (async function* () {
    yield layout.header;
    for (const i of layout.order) {
      const label = `${path}: tensor ${quote((entries[i] as NamedTensorData).name)}`;
      yield* checkedChunks(streams[i] as TensorStream, label, { reuse: true });
    }
  })();
}

/**
 * Writes one tensor atomically in the format of the extension. In an .npz / .safetensors file it
 * is stored as `name` (default `arr_0`, numpy's name for a positional array).
 */
export function writeTensorFile(
  path: string,
  data: Tensor | TensorStream,
  options: WriteOptions & { readonly name?: string } = {},
): Promise<WriteNote[]> {
  return writeTensorsFile(path, [{ name: options.name ?? 'arr_0', data }], options);
}
