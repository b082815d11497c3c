// Reads of byte ranges of the tensor file into caller-owned targets, a few in flight at once.

import { TensorOpsError } from '@tensorops/core';
import { quote } from '../../text.js';
import { canReadMany, readsInPlace } from '../capabilities.js';
import { fileError } from '../errors.js';
import type { RunContext } from './context.js';

export interface PendingRead {
  readonly position: number;
  readonly target: Uint8Array;
}

/**
 * A batch of reads is done in place, where the file can, when each read is at most
 * IN_PLACE_READ_BYTES and all of them at most IN_PLACE_BATCH_BYTES: for reads this small a
 * thread-pool round trip costs more than the copy, and the thread blocks for a bounded batch.
 */
const IN_PLACE_READ_BYTES = 64 << 10;
const IN_PLACE_BATCH_BYTES = 4 << 20;

function smallBatch(reads: readonly PendingRead[]): boolean {
  let total = 0;
  for (const { target } of reads) {
    if (target.length > IN_PLACE_READ_BYTES) return false;
    total += target.length;
  }
  return total <= IN_PLACE_BATCH_BYTES;
}

export async function runReads(ctx: RunContext, reads: PendingRead[]): Promise<void> {
  const { file } = ctx;
  // A truncated read's error already names the file, and fileError passes it on unchanged.
  try {
    // Over the network: one call, which merges neighbouring ranges into few requests.
    if (canReadMany(file)) return await file.readMany(reads);
    if (readsInPlace(file) && smallBatch(reads)) {
      for (const read of reads) filled(ctx, read, file.readInPlace(read.target, read.position));
      return;
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < reads.length) {
        const read = reads[next++] as PendingRead;
        filled(ctx, read, await file.readAt(read.target, read.position));
      }
    };
    await Promise.all(Array.from({ length: Math.min(ctx.concurrency, reads.length) }, worker));
  } catch (cause) {
    throw fileError(ctx.file.path, 'read', cause);
  }
}

/** Throws unless the `got` bytes read fill `read`'s target (the file ended first). */
function filled(ctx: RunContext, { position, target }: PendingRead, got: number): void {
  if (got !== target.length) throw truncated(ctx, position + target.length, position + got);
}

function truncated(ctx: RunContext, needs: number, ends: number): TensorOpsError {
  return new TensorOpsError(
    'E_FORMAT',
    `${ctx.file.path}: data truncated: tensor ${quote(ctx.stored.name ?? '')} needs bytes up to offset ${needs}, the file ends at ${ends}`,
  );
}

/** One large read split in pieces that run concurrently (the page-cache copies overlap). */
export function piecesOf(target: Uint8Array, position: number, piece: number): PendingRead[] {
  const reads: PendingRead[] = [];
  for (let at = 0; at < target.length; at += piece) {
    const end = Math.min(target.length, at + piece);
    reads.push({ position: position + at, target: target.subarray(at, end) });
  }
  return reads;
}
