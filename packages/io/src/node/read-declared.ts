// A tensor file from a pipe or device (stdin, /dev/zero, `<(cmd)`): nothing can be seeked or
// sized up front, so the header is read first, from the first bytes, and then exactly the bytes it
// declares. Whatever follows is never read: an endless or hostile stream costs what its header
// honestly claims, and a stream that is not a tensor file is refused after its first bytes.

import { createReadStream } from 'node:fs';
import { TensorOpsError } from '@tensorops/core';
import { formatOfMagic, type InputFormat, isZipMagic, MAGIC_BYTES } from '../convert.js';
import { readGgufHeader } from '../gguf/read-header.js';
import { npyDataOffset, readNpyHeader } from '../npy.js';
import { parseSafetensorsHeader, safetensorsHeaderLength } from '../safetensors.js';
import { Prefix } from './prefix.js';
import { MAX_STREAM_BYTES } from './read.js';

/**
 * The format of a stream from its first bytes: 9 for the magic numbers, and a zip's first member
 * name (up to MAGIC_BYTES) only for a zip, so that no other stream is read past what its header
 * needs.
 */
async function sniffFormat(prefix: Prefix): Promise<InputFormat> {
  const head = await prefix.take(9);
  return formatOfMagic(isZipMagic(head) ? await prefix.take(MAGIC_BYTES) : head);
}

/**
 * How many bytes the file's header takes and how many the whole file is, from its header; reads
 * only the header to find out. A zip's directory is at its end (.npz, torch): all of it is needed
 * (the stream limit, with no header).
 */
async function declaredLayout(
  prefix: Prefix,
  format: InputFormat,
): Promise<{ header: number; total: number }> {
  if (format === 'npy') {
    const dataOffset = npyDataOffset(await prefix.take(12));
    const header = readNpyHeader(await prefix.take(dataOffset));
    // Trailing bytes are ignored by numpy and never read here.
    return { header: dataOffset, total: dataOffset + header.nbytes };
  }
  if (format === 'safetensors') {
    const length = safetensorsHeaderLength(await prefix.take(8));
    const header = parseSafetensorsHeader(await prefix.take(8 + length));
    // One byte more, so that the reader can refuse data after the last tensor, as for a file.
    return { header: header.dataOffset, total: header.dataOffset + header.dataBytes + 1 };
  }
  if (format === 'gguf') {
    // The header is what the reader asked for, chunk by chunk: the file's reader asks again for
    // the same chunks, so all of them are kept (the last may reach into the data).
    let held = 0;
    const firstBytes = async (n: number): Promise<Uint8Array> => {
      const bytes = await prefix.take(n);
      held = Math.max(held, bytes.length);
      return bytes;
    };
    const header = await readGgufHeader(undefined, firstBytes, MAX_STREAM_BYTES);
    // Bytes after the last tensor's data are not part of it (gguf-py ignores them too).
    return { header: Math.min(held, header.dataEnd), total: header.dataEnd };
  }
  return { header: 0, total: MAX_STREAM_BYTES };
}

/**
 * readDeclaredBytes from descriptor `fd` (a pipe or device), through a stream that owns the
 * descriptor: it is closed once, by the stream, whatever happens. (The stream closes it when
 * destroyed, whatever its autoClose says; a caller that closed the number as well could close a
 * file that reused it in between.)
 */
export async function readDeclaredFromDescriptor(
  fd: number,
  label: string,
  format?: InputFormat,
): Promise<Uint8Array> {
  const stream = createReadStream('', { fd });
  try {
    return await readDeclaredBytes(stream, label, format);
  } finally {
    if (!stream.closed) {
      await new Promise<void>((resolve) => {
        stream.once('close', () => resolve());
        stream.destroy();
      });
    }
  }
}

/**
 * The bytes of a tensor file read from a stream: its header (checked from the first bytes on),
 * then exactly the data the header declares, and nothing after it. `format` comes from the name,
 * else from the magic bytes. Refuses a stream that is not a tensor file after its first bytes; a
 * stream that ends early yields fewer bytes, for the format reader to report as truncated.
 */
export async function readDeclaredBytes(
  stream: AsyncIterable<Uint8Array | string>,
  label: string,
  format?: InputFormat,
): Promise<Uint8Array> {
  const prefix = new Prefix(stream[Symbol.asyncIterator](), label);
  try {
    return await takeDeclared(prefix, label, format ?? (await sniffFormat(prefix)));
  } finally {
    await prefix.close();
  }
}

async function takeDeclared(
  prefix: Prefix,
  label: string,
  format: InputFormat,
): Promise<Uint8Array> {
  const { total } = await declaredLayout(prefix, format);
  if (total > MAX_STREAM_BYTES) {
    throw new TensorOpsError('E_IO', `${label}: input exceeds the ${MAX_STREAM_BYTES}-byte limit`);
  }
  // A zip's length is unknown (MAX_STREAM_BYTES): its chunks are held and joined at the end.
  const bytes = total === MAX_STREAM_BYTES ? await prefix.take(total) : await prefix.fill(total);
  if (total === MAX_STREAM_BYTES && bytes.length === total) {
    throw new TensorOpsError('E_IO', `${label}: input exceeds the ${total}-byte limit`);
  }
  return bytes;
}

/**
 * The header of a tensor file on a stream and nothing after it: its bytes, the format, and the
 * size of the file it declares (its data unread). A zip (.npz, torch), whose directory is at its
 * end, is read whole, as readDeclaredBytes reads it (then `head` is the whole file).
 */
export async function readDeclaredHeader(
  stream: AsyncIterable<Uint8Array | string>,
  label: string,
): Promise<{ head: Uint8Array; size: number; format: InputFormat }> {
  const prefix = new Prefix(stream[Symbol.asyncIterator](), label);
  try {
    const format = await sniffFormat(prefix);
    if (format === 'npz' || format === 'torch') {
      const whole = await takeDeclared(prefix, label, format);
      return { head: whole, size: whole.length, format };
    }
    const { header, total } = await declaredLayout(prefix, format);
    // The size a file of that header has: the byte a safetensors read looks for beyond is left out.
    return {
      head: await prefix.take(header),
      size: format === 'safetensors' ? total - 1 : total,
      format,
    };
  } finally {
    await prefix.close();
  }
}
