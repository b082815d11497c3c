// .gguf from a byte source: the header read in growing chunks (gguf/read-header.ts), then each
// tensor on demand. Plain tensors are read as stored; quantized ones are float32 values
// dequantized row by row from their blocks (a row: ne0 elements, ne0 / blockSize whole blocks).
// Shapes are numpy's: GGUF's `ne` reversed, as gguf-py's GGUFReader gives them.

import type { Dtype, Tensor } from '@tensorops/core';
import { dequantize } from '../gguf/dequantize.js';
import type { GgmlType } from '../gguf/ggml-types.js';
import type { GgufHeader, GgufTensorInfo } from '../gguf/header.js';
import { readGgufHeader } from '../gguf/read-header.js';
import { quote } from '../text.js';
import { type ByteSource, readExactly } from './source.js';
import { type FormatReader, STREAM_CHUNK_BYTES, type StoredTensor } from './stored.js';

/** The ggml types whose bytes are numpy dtypes: read and written bit for bit. */
const PLAIN: Readonly<Record<string, Dtype>> = {
  F32: 'float32',
  F16: 'float16',
  BF16: 'bfloat16',
  F64: 'float64',
  I8: 'int8',
  I16: 'int16',
  I32: 'int32',
  I64: 'int64',
};

function storedTensor(info: GgufTensorInfo): StoredTensor {
  const plain = PLAIN[info.type.name];
  return {
    name: info.name,
    dtype: plain ?? 'float32',
    displayDtype: plain ?? info.type.name,
    formatDtype: info.type.name,
    shape: [...info.ne].reverse(),
    nbytes: info.nbytes,
    offset: info.offset,
    fortranOrder: false,
    byteOrder: 'little',
    ...(plain === undefined ? { quantized: info.type } : {}),
  };
}

/** The header of a .gguf source, its size known: read through the source in growing chunks. */
export function readGgufSourceHeader(source: ByteSource): Promise<GgufHeader> {
  let held = new Uint8Array(0);
  return readGgufHeader(
    source.size,
    async (n) => {
      if (n <= held.length) return held.subarray(0, n);
      const more = new Uint8Array(n);
      more.set(held);
      const got = await source.read(more.subarray(held.length), held.length);
      held = more.subarray(0, held.length + got);
      return held;
    },
    source.size,
  );
}

/**
 * A quantized tensor as its stored blocks: uint8 rows of ne0 / blockSize * typeSize bytes (the
 * shape gguf-py's GGUFReader gives its `data`), read as they are.
 */
export function quantizedBlocks(t: StoredTensor): StoredTensor {
  const { quantized, ...rest } = t;
  if (quantized === undefined) return t;
  const row = quantizedRow(t, quantized);
  return {
    ...rest,
    dtype: 'uint8',
    displayDtype: 'uint8',
    shape: [...t.shape.slice(0, -1), row.bytes],
  };
}

/** Elements of one row (ne0) of a quantized tensor, and its bytes as stored. */
export function quantizedRow(t: StoredTensor, type: GgmlType): { length: number; bytes: number } {
  const length = t.shape[t.shape.length - 1] ?? 1;
  return { length, bytes: (length / type.blockSize) * type.typeSize };
}

/** float32 little-endian bytes of `rows` rows of quantized `blocks`. */
export function dequantizeRows(type: GgmlType, blocks: Uint8Array, elements: number): Uint8Array {
  const values = dequantize(type, blocks, elements);
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

function elementsOf(t: StoredTensor): number {
  return t.shape.reduce((n, d) => n * d, 1);
}

async function* dequantizedChunks(
  source: ByteSource,
  t: StoredTensor,
  type: GgmlType,
): AsyncIterable<Uint8Array> {
  const row = quantizedRow(t, type);
  const rows = row.length === 0 ? 0 : elementsOf(t) / row.length;
  const rowsPerChunk = Math.max(1, Math.floor(STREAM_CHUNK_BYTES / Math.max(1, row.length * 4)));
  for (let r = 0; r < rows; r += rowsPerChunk) {
    const n = Math.min(rowsPerChunk, rows - r);
    const blocks = await readExactly(
      source,
      (t.offset as number) + r * row.bytes,
      n * row.bytes,
      `tensor ${quote(t.name ?? '')} data`,
    );
    yield dequantizeRows(type, blocks, n * row.length);
  }
}

export async function ggufReader(source: ByteSource): Promise<FormatReader> {
  const header = await readGgufSourceHeader(source);
  const { version, alignment, metadata } = header;
  return {
    format: 'gguf',
    tensors: header.tensors.map(storedTensor),
    metadata: null,
    gguf: { version, alignment, metadata },
    rangedStreams: true,
    async read(t): Promise<Tensor> {
      const shape = [...t.shape];
      if (t.quantized === undefined) {
        const data = await readExactly(source, t.offset as number, t.nbytes, '.gguf data');
        return { dtype: t.dtype as Dtype, shape, data };
      }
      const data = new Uint8Array(elementsOf(t) * 4);
      let at = 0;
      for await (const chunk of dequantizedChunks(source, t, t.quantized)) {
        data.set(chunk, at);
        at += chunk.length;
      }
      return { dtype: 'float32', shape, data };
    },
    chunks(t) {
      return t.quantized === undefined ? undefined : dequantizedChunks(source, t, t.quantized);
    },
    async close() {},
  };
}
