// A tensor whose bytes arrive in chunks: how large tensors move from a file (or an executor) to a
// writer without ever being whole in memory.

import {
  checkTensor,
  type Dtype,
  type Shape,
  type Tensor,
  TensorOpsError,
  tensorBytes,
} from '@tensorops/core';
import { widenBytesToFloat32 } from '../convert.js';

export interface ChunkOptions {
  /**
   * Allow the producer to hand out the same buffer again once the consumer asks for the next
   * chunk. Only for consumers that are done with a chunk when they ask for the next (a file
   * writer that awaits each write); never for a stream that may still hold it in a queue.
   */
  readonly reuse?: boolean;
}

/** dtype and shape up front, then the little-endian C-order bytes, element-aligned chunks. */
export interface TensorStream {
  readonly dtype: Dtype;
  readonly shape: Shape;
  readonly nbytes: number;
  chunks(options?: ChunkOptions): AsyncIterable<Uint8Array>;
}

export function isTensorStream(x: Tensor | TensorStream): x is TensorStream {
  return typeof (x as TensorStream).chunks === 'function';
}

export function streamOfTensor(t: Tensor): TensorStream {
  checkTensor(t, 'tensor');
  return {
    dtype: t.dtype,
    shape: t.shape,
    nbytes: t.data.byteLength,
    async *chunks() {
      yield t.data;
    },
  };
}

/** Gathers a stream into one tensor (for outputs that need it whole: --json, a terminal view). */
export async function collectStream(s: TensorStream): Promise<Tensor> {
  const data = new Uint8Array(s.nbytes);
  let at = 0;
  for await (const chunk of s.chunks()) {
    if (at + chunk.byteLength > data.length) break;
    data.set(chunk, at);
    at += chunk.byteLength;
  }
  if (at !== data.length) {
    throw new TensorOpsError('E_IO', `tensor stream produced ${at} bytes, expected ${s.nbytes}`);
  }
  return { dtype: s.dtype, shape: [...s.shape], data };
}

/** The same values as float32, converted chunk by chunk (bfloat16 / float8 only; exact). */
export function widenStream(s: TensorStream): TensorStream {
  const factor = s.dtype === 'bfloat16' ? 2 : 4;
  return {
    dtype: 'float32',
    shape: s.shape,
    nbytes: s.nbytes * factor,
    async *chunks() {
      for await (const chunk of s.chunks()) yield widenBytesToFloat32(s.dtype, chunk);
    },
  };
}

/** Passes a stream's chunks on, failing unless it delivers exactly what dtype and shape promise. */
export async function* checkedChunks(
  s: TensorStream,
  label: string,
  options?: ChunkOptions,
): AsyncIterable<Uint8Array> {
  const expected = tensorBytes(s);
  let total = 0;
  for await (const chunk of s.chunks(options)) {
    total += chunk.byteLength;
    if (total > expected) break;
    yield chunk;
  }
  if (total !== expected) {
    throw new TensorOpsError(
      'E_SHAPE',
      `${label}: dtype ${s.dtype} and shape [${s.shape.join(',')}] need ${expected} bytes, the data has ${total > expected ? 'more' : total}`,
    );
  }
}
