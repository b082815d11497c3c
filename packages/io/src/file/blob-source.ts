// A Blob or File (browser, worker, Node) as a byte source: every read is a slice of it, so a
// gather reads only the ranges it needs and a File on disk is never loaded whole. Reads that lie
// close together are merged into one slice, as requests over HTTP are (see ../remote/coalesce.ts).

import { TensorOpsError } from '@tensorops/core';
import { coalesceReads, type RangeRead } from '../remote/coalesce.js';
import type { RangeBatchReader } from './capabilities.js';
import type { ByteSource } from './source.js';

/** Slices read at once by readMany. */
const CONCURRENCY = 8;
/** Largest single slice when reads are merged. */
const MAX_SLICE_BYTES = 16 << 20;

class BlobSource implements ByteSource, RangeBatchReader {
  constructor(
    readonly label: string,
    private readonly blob: Blob,
  ) {}

  get size(): number {
    return this.blob.size;
  }

  async read(target: Uint8Array, position: number): Promise<number> {
    const length = Math.max(0, Math.min(target.length, this.blob.size - position));
    if (length === 0) return 0;
    target.set(await this.slice(position, position + length));
    return length;
  }

  async readMany(reads: readonly RangeRead[]): Promise<void> {
    for (const r of reads) {
      if (r.position + r.target.length > this.blob.size) {
        throw new TensorOpsError(
          'E_IO',
          `${this.label}: read past the end: bytes up to ${r.position + r.target.length} of ${this.blob.size}`,
        );
      }
    }
    const slices = coalesceReads(reads, MAX_SLICE_BYTES);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < slices.length) {
        const s = slices[next++] as (typeof slices)[number];
        const bytes = await this.slice(s.start, s.end);
        for (const r of s.reads) {
          const at = r.position - s.start;
          r.target.set(bytes.subarray(at, at + r.target.length));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, slices.length) }, worker));
  }

  private async slice(start: number, end: number): Promise<Uint8Array> {
    return new Uint8Array(await this.blob.slice(start, end).arrayBuffer());
  }

  async close(): Promise<void> {}
}

/** A Blob as a byte source; `label` names it in messages (default: a File's name, else `blob`). */
export function blobSource(blob: Blob, label?: string): ByteSource {
  const name = (blob as { name?: unknown }).name;
  return new BlobSource(label ?? (typeof name === 'string' && name !== '' ? name : 'blob'), blob);
}
