import { TensorOpsError } from '@tensorops/core';
import type { StoredTensor, TensorFile } from '@tensorops/io/node';
import { printable } from '../ui/layout.js';

/** Bytes read at a time for tensors that cannot be streamed as values (no tensorops dtype). */
const RAW_CHUNK_BYTES = 1 << 20;

/**
 * `inspect --verify`: reads every byte of `t` through the file's own reader, which checks what the
 * format can (.npz: each member's CRC-32 and sizes; every format: that the data fills the declared
 * size), and checks that bool bytes are 0 or 1. The first problem is an E_FORMAT error naming the
 * tensor.
 */
export async function verifyTensor(file: TensorFile, t: StoredTensor): Promise<void> {
  try {
    if (t.dtype === undefined) await readRaw(file, t);
    else {
      const bool = t.dtype === 'bool';
      let at = 0;
      // The values' bytes: the stored ones, or float32 for a quantized GGUF tensor.
      const stream = file.stream(t);
      for await (const chunk of stream.chunks({ reuse: true })) {
        if (bool) checkBool(chunk, at);
        at += chunk.byteLength;
      }
      if (at !== stream.nbytes)
        throw new Error(`data holds ${at} bytes, declares ${stream.nbytes}`);
    }
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const which = t.name === null ? '' : ` tensor '${printable(t.name)}'`;
    throw new TensorOpsError(
      'E_FORMAT',
      `${file.path}:${which} fails verification: ${stripPath(message, file.path)}`,
      { cause },
    );
  }
}

function checkBool(chunk: Uint8Array, at: number): void {
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i] as number;
    if (b > 1) throw new Error(`bool byte ${at + i} is ${b}, not 0 or 1`);
  }
}

/**
 * Tensors without a tensorops dtype (float4/float6, torch's complex32 and quantized ones) are read
 * as bytes: present in full is all that is checked; a strided or packed view, not at all.
 */
async function readRaw(file: TensorFile, t: StoredTensor): Promise<void> {
  if (t.offset === null) return;
  const buffer = new Uint8Array(Math.min(RAW_CHUNK_BYTES, t.nbytes));
  for (let done = 0; done < t.nbytes; ) {
    const want = Math.min(buffer.length, t.nbytes - done);
    const got = await file.readAt(buffer.subarray(0, want), t.offset + done);
    if (got < want) throw new Error(`data ends after ${done + got} of ${t.nbytes} bytes`);
    done += got;
  }
}

/** The reader's messages start with the path already named by ours. */
function stripPath(message: string, path: string): string {
  return message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message;
}
