// What a tensor file holds, read from its header or central directory only, and the handle that
// reads tensors from it on demand. One implementation per format (npy-file.ts, npz-file.ts,
// safetensors-file.ts); tensor-file.ts picks one.

import { type Dtype, dtypeSize, type Shape, type Tensor, TensorOpsError } from '@tensorops/core';
import type { InputFormat } from '../convert.js';
import type { GgmlType } from '../gguf/ggml-types.js';
import type { GgufHeader } from '../gguf/header.js';
import { byteSwapUnit, swapBytesInPlace } from '../layout.js';
import type { NpyByteOrder } from '../npy.js';
import { quote } from '../text.js';
import {
  canReadMany,
  canRelease,
  holdsBytes,
  type InMemoryBytes,
  type InPlaceReader,
  type RangeBatchReader,
  type Releasable,
  readsInPlace,
} from './capabilities.js';
import { fileError } from './errors.js';
import type { ByteSource } from './source.js';
import type { TensorStream } from './tensor-stream.js';

/** One tensor of a file, as its header describes it. */
export interface StoredTensor {
  /** Null for a .npy file (its one tensor has no name). */
  readonly name: string | null;
  /**
   * The tensorops dtype; undefined (inspect-only) for safetensors' sub-byte F4 / F6_* and torch's
   * complex32 and quantized dtypes.
   */
  readonly dtype: Dtype | undefined;
  /** Why a tensor without a dtype cannot be loaded, when not for being packed below a byte. */
  readonly unloadable?: string;
  /** numpy / ml_dtypes name for display (`float4_e2m1fn` for F4). */
  readonly displayDtype: string;
  /** The dtype as the file spells it: a .npy descr (`>i4`) or a safetensors name (`BF16`). */
  readonly formatDtype: string;
  readonly shape: Shape;
  /** Bytes of data as stored. */
  readonly nbytes: number;
  /** Absolute file offset of the first data byte; null when the data is compressed. */
  readonly offset: number | null;
  readonly fortranOrder: boolean;
  readonly byteOrder: NpyByteOrder;
  /** .npz members only. */
  readonly compression?: 'stored' | 'deflate';
  readonly compressedBytes?: number;
  /**
   * Tensors of a sharded checkpoint: the shard's name in the index and the offset of the first
   * data byte within that shard (`offset` is a position in the shards laid end to end).
   */
  readonly shard?: { readonly name: string; readonly offset: number | null };
  /**
   * torch checkpoints: the storage the tensor views, how many other tensors view it too, and the
   * view's strides (in elements) when it is not C-contiguous (then `offset` is null).
   */
  readonly storage?: {
    readonly key: string;
    readonly shared: number;
    readonly strides?: readonly number[];
  };
  /**
   * A quantized GGUF tensor: the ggml block type its bytes are stored in (`nbytes` of them). Its
   * values are float32 (`dtype`), dequantized on reading; its bytes are not ranges of values.
   */
  readonly quantized?: GgmlType;
}

/** What a GGUF file says beside its tensors. */
export type GgufInfo = Pick<GgufHeader, 'version' | 'alignment' | 'metadata'>;

/** What a sharded checkpoint's index adds to a TensorFile. */
export interface ShardedInfo {
  /** How many shards the index names (not all of them need be open). */
  readonly shards: number;
  /** Tensors the opened shards hold that the weight map does not give them (`inspect --verify`). */
  readonly unmapped: readonly { readonly shard: string; readonly name: string }[];
}

/**
 * A container member that is not a readable tensor. `other`: not a NAME.npy member (a readme, a
 * directory entry), which np.load returns as raw bytes; `unreadable`: a NAME.npy member whose
 * header or size tensorops refuses. Either is refused only when asked for by name.
 */
export interface NotATensor {
  /** The name np.load lists it under: NAME for NAME.npy, else the member name. */
  readonly name: string;
  readonly kind: 'other' | 'unreadable';
  /** Why, as the one-line error that asking for it gives. */
  readonly error: TensorOpsError;
}

/** An open tensor file. Close it when done (streams keep it open until they finish). */
export interface TensorFile {
  readonly path: string;
  readonly format: InputFormat;
  /** File size in bytes. */
  readonly size: number;
  /** In file order (data order for .safetensors, member order for .npz). */
  readonly tensors: readonly StoredTensor[];
  /** .npz members that are not readable tensors (empty for the other formats). */
  readonly notTensors: readonly NotATensor[];
  /** Entries of a torch checkpoint's state dict that are not tensors (0 for the other formats). */
  readonly otherEntries: number;
  /** .safetensors `__metadata__`; null when absent and for the other formats. */
  readonly metadata: Readonly<Record<string, string>> | null;
  /** Present for a sharded checkpoint (`*.safetensors.index.json`). */
  readonly sharded?: ShardedInfo;
  /** Present for a .gguf file: its typed metadata. */
  readonly gguf?: GgufInfo;
  /** The tensor called `name`; without a name, the only one. Throws E_TENSOR_NOT_FOUND. */
  get(name?: string): StoredTensor;
  /** Loads one tensor: little-endian C order, integrity checked (CRC-32 for .npz members). */
  read(t: StoredTensor): Promise<Tensor>;
  /**
   * The tensor in chunks. .npy and .safetensors data is read straight from the file in bounded
   * chunks (byte-swapped on the way when big-endian); Fortran-order data and .npz members are
   * loaded whole first (a transpose and a CRC need all of it).
   */
  stream(t: StoredTensor): TensorStream;
  /** Raw bytes at an absolute offset, for executors that read only what they need. */
  readAt(target: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
}

/** Chunk size for streaming reads: large enough for sequential throughput, small for memory. */
export const STREAM_CHUNK_BYTES = 8 << 20;

/** Bytes per word to swap to read the tensor as little-endian (1: no swap). */
export function swapUnitOf(t: StoredTensor, dtype: Dtype): number {
  return t.byteOrder === 'big' ? byteSwapUnit(dtype) : 1;
}

/**
 * True when the tensor's bytes can be read by byte range in C order: stored uncompressed, and not
 * a Fortran-order array of rank 2 or more (which needs a transpose of all of it).
 */
export function rangeReadable(t: StoredTensor): boolean {
  return t.offset !== null && !(t.fortranOrder && t.shape.length >= 2) && t.quantized === undefined;
}

/** Bytes of the tensor's values as loaded: its stored bytes, or float32 for a quantized one. */
export function loadedBytes(t: StoredTensor): number {
  return t.quantized === undefined ? t.nbytes : t.shape.reduce((n, d) => n * d, 4);
}

export interface FormatReader {
  readonly format: InputFormat;
  readonly tensors: readonly StoredTensor[];
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly notTensors?: readonly NotATensor[];
  readonly otherEntries?: number;
  readonly gguf?: GgufInfo;
  /** Loads one tensor (errors unprefixed; the wrapper adds the path). */
  read(t: StoredTensor): Promise<Tensor>;
  /** True when `stream` may read the tensor's bytes straight from the file. */
  readonly rangedStreams: boolean;
  /** A format's own chunked reader (.npz: stored members with a running CRC); undefined: default. */
  chunks?(t: StoredTensor, dtype: Dtype, reuse: boolean): AsyncIterable<Uint8Array> | undefined;
  close(): Promise<void>;
}

function listNames(tensors: readonly { readonly name: string | null }[]): string {
  const names = tensors.slice(0, 8).map((t) => quote(t.name ?? ''));
  return tensors.length > 8
    ? `${names.join(', ')} and ${tensors.length - 8} more`
    : names.join(', ');
}

/** The dtype to load a stored tensor as, or the refusal naming the tensor and its dtype. */
export function loadableDtype(t: StoredTensor): Dtype {
  if (t.dtype !== undefined) return t.dtype;
  const why = t.unloadable ?? 'packed below one byte per element';
  throw new TensorOpsError(
    'E_DTYPE',
    `tensor ${quote(t.name ?? '')} has dtype ${t.formatDtype} (${t.displayDtype}), ${why}: it can be inspected, not loaded, converted or gathered`,
  );
}

/**
 * Wraps a format reader into the public TensorFile: name lookup, streams, path-prefixed errors.
 * The file has the capabilities its source has (see withCapabilitiesOf).
 */
export function tensorFile(source: ByteSource, reader: FormatReader): TensorFile {
  const path = source.label;
  const file: TensorFile = {
    path,
    format: reader.format,
    size: source.size,
    tensors: reader.tensors,
    notTensors: reader.notTensors ?? [],
    otherEntries: reader.otherEntries ?? 0,
    metadata: reader.metadata,
    ...(reader.gguf === undefined ? {} : { gguf: reader.gguf }),
    get(name) {
      const { tensors } = reader;
      if (reader.format === 'npy') {
        if (name !== undefined) {
          throw new TensorOpsError(
            'E_TENSOR_NOT_FOUND',
            `${path}: a .npy file holds one unnamed tensor, not ${quote(name)}`,
          );
        }
        return tensors[0] as StoredTensor;
      }
      if (name === undefined) {
        // An unreadable NAME.npy member was meant as a tensor: it counts, and its error is the
        // answer when it is the only one.
        const unreadable = reader.notTensors?.filter((o) => o.kind === 'unreadable') ?? [];
        if (tensors.length === 0 && unreadable.length === 1) {
          throw fileError(path, 'read', (unreadable[0] as NotATensor).error);
        }
        if (tensors.length === 1 && unreadable.length === 0) return tensors[0] as StoredTensor;
        const all = [...tensors, ...unreadable];
        throw new TensorOpsError(
          'E_TENSOR_NOT_FOUND',
          all.length === 0
            ? `${path}: holds no tensors`
            : `${path}: holds ${all.length} tensors (${listNames(all)}) and no name was given`,
        );
      }
      const found = tensors.find((t) => t.name === name);
      if (found !== undefined) return found;
      const other = reader.notTensors?.find((o) => o.name === name);
      if (other !== undefined) throw fileError(path, 'read', other.error);
      throw new TensorOpsError(
        'E_TENSOR_NOT_FOUND',
        `${path}: no tensor ${quote(name)}${tensors.length ? ` (it holds ${listNames(tensors)})` : ' (it holds none)'}`,
      );
    },
    async read(t) {
      try {
        return await reader.read(t);
      } catch (cause) {
        throw fileError(path, 'read', cause);
      }
    },
    stream(t) {
      let dtype: Dtype;
      try {
        dtype = loadableDtype(t);
      } catch (cause) {
        throw fileError(path, 'read', cause);
      }
      const ranged = reader.rangedStreams && rangeReadable(t);
      const whole = async function* () {
        yield (await file.read(t)).data;
      };
      return {
        dtype,
        shape: t.shape,
        nbytes: loadedBytes(t),
        chunks: (options) => {
          const reuse = options?.reuse === true;
          if (ranged) return rangedChunks(source, t, dtype, reuse);
          const own = reader.chunks?.(t, dtype, reuse);
          return own === undefined ? whole() : prefixErrors(own, path);
        },
      };
    },
    readAt(target, position) {
      return source.read(target, position);
    },
    ...withCapabilitiesOf(source),
    async close() {
      await reader.close();
      await source.close();
    },
  };
  return file;
}

/**
 * The capabilities of `source` that a file over it passes on, calling the source. A file always
 * answers bytesInMemory (undefined where its source holds nothing in memory).
 */
function withCapabilitiesOf(
  source: ByteSource,
): InMemoryBytes & Partial<RangeBatchReader & Releasable & InPlaceReader> {
  return {
    bytesInMemory: (position, length) =>
      holdsBytes(source) ? source.bytesInMemory(position, length) : undefined,
    ...(canReadMany(source) ? { readMany: (reads) => source.readMany(reads) } : {}),
    ...(readsInPlace(source)
      ? { readInPlace: (target, position) => source.readInPlace(target, position) }
      : {}),
    ...(canRelease(source) ? { release: (position) => source.release(position) } : {}),
  };
}

async function* rangedChunks(
  source: ByteSource,
  t: StoredTensor,
  dtype: Dtype,
  reuse: boolean,
): AsyncIterable<Uint8Array> {
  const item = Math.max(1, dtypeSize(dtype));
  const chunkBytes = Math.max(item, Math.floor(STREAM_CHUNK_BYTES / item) * item);
  try {
    yield* chunkedRange(
      source,
      t.offset as number,
      t.nbytes,
      chunkBytes,
      reuse,
      `tensor ${quote(t.name ?? '')} data`,
      undefined,
      swapUnitOf(t, dtype),
    );
  } catch (cause) {
    throw fileError(source.label, 'read', cause);
  }
}

async function* prefixErrors(
  chunks: AsyncIterable<Uint8Array>,
  path: string,
): AsyncIterable<Uint8Array> {
  try {
    yield* chunks;
  } catch (cause) {
    throw fileError(path, 'read', cause);
  }
}

/**
 * Reads `length` bytes from `start` in chunks of at most `chunkBytes` (a multiple of the item
 * size), handing each raw chunk to `visit` before it is byte-swapped and yielded.
 */
export async function* chunkedRange(
  source: ByteSource,
  start: number,
  length: number,
  chunkBytes: number,
  reuse: boolean,
  what: string,
  visit?: (raw: Uint8Array) => void,
  swapUnit = 1,
): AsyncIterable<Uint8Array> {
  let buffer: Uint8Array | undefined;
  for (let done = 0; done < length; ) {
    const n = Math.min(chunkBytes, length - done);
    const chunk = reuse && buffer !== undefined ? buffer.subarray(0, n) : new Uint8Array(n);
    if (reuse) buffer ??= chunk;
    const got = await source.read(chunk, start + done);
    if (got !== n) {
      throw new TensorOpsError(
        'E_FORMAT',
        `${what} truncated: needs ${length} bytes at offset ${start}, the file ends after ${done + got}`,
      );
    }
    visit?.(chunk);
    swapBytesInPlace(chunk, swapUnit);
    done += n;
    yield chunk;
  }
}
