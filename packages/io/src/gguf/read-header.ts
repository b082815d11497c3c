// The GGUF header from any reader of a file's first bytes, fetched in growing chunks: the first
// 64 KiB (what an HTTP source's first request holds), then eight times what is held (or what a
// long string or array needs) until the header parses. A multi-megabyte tokenizer costs a few reads (few HTTP requests), never one per value,
// and the parse restarts on the bytes held, so its total work stays linear in the header.

import { TensorOpsError } from '@tensorops/core';
import { MoreBytesNeeded } from './cursor.js';
import { type GgufHeader, parseGgufHeader } from './header.js';

/** Headers (metadata and tensor infos) larger than this are refused: 128 MiB. */
export const GGUF_MAX_HEADER_BYTES = 128 << 20;

const FIRST_READ_BYTES = 64 << 10;

/**
 * Parses the header of a file of `fileSize` bytes (undefined for a stream: its size is what
 * `firstBytes` yields when it ends short). `firstBytes(n)` returns the file's first n bytes, or
 * all of them when the file is shorter.
 */
export async function readGgufHeader(
  fileSize: number | undefined,
  firstBytes: (n: number) => Promise<Uint8Array>,
  streamLimit: number,
): Promise<GgufHeader> {
  let asked = Math.min(FIRST_READ_BYTES, fileSize ?? FIRST_READ_BYTES);
  for (;;) {
    const held = await firstBytes(asked);
    // A stream that ends before the bytes asked for has told its size; a file that does so is
    // shorter than it said, and is parsed as what it holds (so the parse ends, as truncated).
    const size = held.length < asked ? held.length : (fileSize ?? streamLimit);
    try {
      return parseGgufHeader(held, size);
    } catch (error) {
      if (!(error instanceof MoreBytesNeeded)) throw error;
      if (error.end > GGUF_MAX_HEADER_BYTES) {
        throw new TensorOpsError(
          'E_FORMAT',
          `GGUF header goes on past ${GGUF_MAX_HEADER_BYTES} bytes, the most tensorops reads`,
        );
      }
      asked = Math.min(Math.max(error.end, held.length * 8), GGUF_MAX_HEADER_BYTES, size);
    }
  }
}
