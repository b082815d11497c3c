// The temp file of a copy in progress, as a byte source of the size its header declares, read
// through the copy's own descriptor: each read waits until the copy has written past its end (or
// ended), then reads the file; once the whole file is there, a release cuts it short. The worker
// writes at the descriptor's offset, the reads are positional.

import { closeSync, ftruncateSync } from 'node:fs';
import type { FileDescriptor, Releasable } from '../../file/capabilities.js';
import type { ByteSource } from '../../file/source.js';
import { readInto } from '../../node/read.js';
import type { CopyProgress } from './copy-progress.js';

export class SpillSource implements ByteSource, FileDescriptor, Releasable {
  private closed = false;

  constructor(
    readonly label: string,
    readonly fd: number,
    private readonly headerBytes: number,
    private readonly dataBytes: number,
    private readonly progress: CopyProgress,
    private readonly copied: Promise<void>,
  ) {}

  get size(): number {
    return this.headerBytes + this.dataBytes;
  }

  /** The copy is over and the file holds all the data its header declares. */
  private get whole(): boolean {
    return this.progress.ended && this.progress.written >= this.dataBytes;
  }

  async read(target: Uint8Array, position: number): Promise<number> {
    const end = Math.min(position + target.length, this.size);
    await this.progress.reach(end - this.headerBytes);
    // Short: the copy failed (its error) or the pipe ended (the file is short, the read says so).
    if (this.headerBytes + this.progress.written < end) await this.copied;
    return readInto(this.fd, target, position);
  }

  /**
   * Frees the file's pages from `position` on (page cache the next writes of the run reuse, where
   * fresh memory costs a fault per page). Only once the copy is whole: the worker writes no more.
   */
  release(position: number): void {
    if (this.closed || !this.whole) return;
    try {
      ftruncateSync(this.fd, Math.max(this.headerBytes, position));
    } catch {
      // A hint only: where the cut fails, the pages are freed when the file is closed.
    }
  }

  /** Once only: a second close could close a descriptor number reused by then. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
