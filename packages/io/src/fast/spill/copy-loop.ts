// The copy a pipe copier's worker thread runs: blocking read(2) and write(2) in a loop, with no
// round trip through the thread pool and the event loop per pipe buffer. Each read is written at
// once from a small buffer, which stays in the CPU cache between the two copies; the progress is
// published once per PUBLISH_BYTES, not per read, so that a waiting reader is woken rarely.

import { readSync, writeSync } from 'node:fs';
import { publishProgress } from './copy-progress.js';

/** The largest read: a pipe hands over at most its buffer per read. */
const BUFFER_BYTES = 1 << 16;
/** Bytes copied between two progress updates. */
const PUBLISH_BYTES = 1 << 20;

/** What the worker is asked to copy (see PipeCopier.copy). */
export interface CopyJob {
  readonly from: number;
  readonly to: number;
  readonly first: Uint8Array;
  readonly bytes: number;
  readonly progress: SharedArrayBuffer;
}

/** Where a copy failed, as the worker posts it: the error's fields survive the message. */
export interface PostedFailure {
  readonly op: 'read' | 'write';
  readonly code?: string;
  readonly message: string;
  readonly syscall?: string;
}

export type CopyOutcome = { readonly copied: number } | { readonly failed: PostedFailure };

/**
 * Writes `first` to `to`, then copies up to `bytes` more from `from`, publishing the bytes written
 * after `first`, after each PUBLISH_BYTES, and with the copy's end, whichever way it ends.
 */
export function runCopy({ from, to, first, bytes, progress }: CopyJob): CopyOutcome {
  // Outside the try: a job it cannot even start kills the worker, whose copier then ends the
  // progress from its side.
  const buffer = Buffer.allocUnsafe(Math.min(bytes, BUFFER_BYTES));
  let op: PostedFailure['op'] = 'write';
  try {
    writeAll(to, first, first.length);
    publishProgress(progress, first.length, false);
    let copied = 0;
    let published = 0;
    while (copied < bytes) {
      op = 'read';
      const got = readSync(from, buffer, 0, Math.min(buffer.length, bytes - copied), null);
      if (got === 0) break;
      op = 'write';
      writeAll(to, buffer, got);
      copied += got;
      if (copied - published >= PUBLISH_BYTES) {
        publishProgress(progress, first.length + copied, false);
        published = copied;
      }
    }
    publishProgress(progress, first.length + copied, true);
    return { copied };
  } catch (error) {
    publishProgress(progress, undefined, true);
    const { code, message, syscall } = error as NodeJS.ErrnoException;
    return {
      failed: {
        op,
        message,
        ...(code === undefined ? {} : { code }),
        ...(syscall === undefined ? {} : { syscall }),
      },
    };
  }
}

function writeAll(fd: number, data: Uint8Array, length: number): void {
  for (let at = 0; at < length; ) at += writeSync(fd, data, at, length - at);
}
