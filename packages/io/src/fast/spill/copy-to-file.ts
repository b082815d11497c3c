// The capability a stream has when its data can be copied to a file by a worker thread: a .npy
// on a pipe given as a descriptor. A stream from anything else (an async iterable) lacks it, and a
// spill then copies by reading the stream (spill-by-reads.ts).

import type { CopyProgress } from './copy-progress.js';
import { type PipeCopier, startPipeCopier } from './pipe-copy.js';

/** Declared data from which a copier is started ahead of its copy (see descriptorCopier). */
const COPIER_AHEAD_BYTES = 64 << 20;

/** A stream whose remaining data a copy thread can write to a file. */
export interface CopyToFile {
  /**
   * Copies the rest of the declared data to descriptor `fd` (a file open for writing, at its
   * offset); resolves to the bytes copied (fewer only where the stream ends), rejects with a
   * CopyFailure. The copy publishes its progress in `progress`, for a reader of `fd`'s file.
   */
  copyTo(fd: number, progress: CopyProgress): Promise<number>;
}

export function canCopyToFile<T extends object>(x: T): x is T & CopyToFile {
  return typeof (x as Partial<CopyToFile>).copyTo === 'function';
}

/** The declared data of a stream read from a descriptor, as far as it is read so far. */
export interface DescriptorData {
  readonly fd: number;
  /** Bytes already taken from the descriptor and held (read with the header). */
  readonly held: number;
  /** Declared data bytes not read yet, held ones included. */
  readonly left: number;
  /** Fills `target` with the next data bytes: held ones first, then the descriptor's. */
  read(target: Uint8Array): Promise<number>;
  /** Counts `bytes` taken from the descriptor by the copy, past read(). */
  taken(bytes: number): void;
}

export interface DescriptorCopier extends CopyToFile {
  /** Ends the copier's worker, if one was started. */
  stop(): Promise<void>;
}

/**
 * copyTo for `data`: the held bytes are written first, the rest is copied straight from the
 * descriptor. With `ahead`, a copy of large data starts its worker now, while the caller reads
 * the indices and plans.
 */
export function descriptorCopier(data: DescriptorData, ahead: boolean): DescriptorCopier {
  let copier: PipeCopier | undefined =
    ahead && data.left >= COPIER_AHEAD_BYTES ? startPipeCopier() : undefined;
  return {
    async copyTo(fd, progress) {
      const held = new Uint8Array(Math.min(data.held, data.left));
      const first = await data.read(held);
      copier ??= startPipeCopier();
      const left = data.left;
      const rest = await copier.copy(data.fd, fd, held.subarray(0, first), left, progress.shared);
      data.taken(rest);
      return first + rest;
    },
    async stop() {
      await copier?.stop();
    },
  };
}
