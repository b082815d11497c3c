// Many files read as byte sources with a bounded number of them open at once (the shards of a
// sharded checkpoint: tens of thousands of files, more than a process may hold open). A source
// that holds a descriptor is closed when it is the least recently used one and room is needed, and
// opened again when it is next read; a source that holds no descriptor (bytes read from a pipe)
// stays as it is. The caller sees plain ByteSources, so the readers built on them are unchanged.

import { TensorOpsError } from '@tensorops/core';
import { hasDescriptor } from './capabilities.js';
import { fileError } from './errors.js';
import type { ByteSource } from './source.js';

/** Opens a file by its name; opening it again must give the same bytes. */
export type OpenByName = (name: string) => Promise<ByteSource>;

class ReopeningSource implements ByteSource {
  /** The open file, while the pool holds it. */
  handle: ByteSource | undefined;
  /** The reopening under way, which every read arriving meanwhile waits for. */
  opening: Promise<ByteSource> | undefined;
  /** Reads started and not finished: a source with any is never closed under them. */
  busy = 0;
  closed = false;

  constructor(
    private readonly pool: HandlePool,
    readonly name: string,
    readonly label: string,
    readonly size: number,
    first: ByteSource,
  ) {
    this.handle = first;
  }

  async read(target: Uint8Array, position: number): Promise<number> {
    this.busy++;
    try {
      const handle = await this.pool.handleOf(this);
      return await handle.read(target, position);
    } finally {
      this.busy--;
      this.pool.trim();
    }
  }

  close(): Promise<void> {
    this.closed = true;
    return this.pool.release(this);
  }
}

/**
 * The open handles, least recently used first. Opening one first closes the least recently used
 * idle ones down to `limit - 1`, and a finished read closes them down to `limit`; so at most
 * `limit` are held, plus one per read in flight (a handle is never closed under a read): bounded
 * by the caller's concurrency, never by the number of files.
 */
class HandlePool {
  private readonly held = new Set<ReopeningSource>();

  constructor(
    private readonly open: OpenByName,
    private readonly limit: number,
  ) {}

  async openFirst(name: string): Promise<ByteSource> {
    await this.keepAtMost(this.limit - 1);
    const first = await this.open(name);
    if (!hasDescriptor(first)) return first;
    const source = new ReopeningSource(this, name, first.label, first.size, first);
    this.held.add(source);
    return source;
  }

  handleOf(source: ReopeningSource): Promise<ByteSource> {
    if (source.handle !== undefined) {
      // Most recently used: last in the set's order.
      this.held.delete(source);
      this.held.add(source);
      return Promise.resolve(source.handle);
    }
    if (source.closed) {
      return Promise.reject(new TensorOpsError('E_IO', `${source.label}: read after close`));
    }
    source.opening ??= this.reopen(source).finally(() => {
      source.opening = undefined;
    });
    return source.opening;
  }

  private async reopen(source: ReopeningSource): Promise<ByteSource> {
    await this.keepAtMost(this.limit - 1);
    let handle: ByteSource;
    try {
      handle = await this.open(source.name);
    } catch (cause) {
      throw fileError(source.label, 'read', cause);
    }
    if (source.closed || handle.size !== source.size || !hasDescriptor(handle)) {
      await handle.close().catch(() => {});
      if (source.closed) throw new TensorOpsError('E_IO', `${source.label}: read after close`);
      throw new TensorOpsError('E_IO', `${source.label}: the file changed since it was opened`);
    }
    source.handle = handle;
    this.held.add(source);
    return handle;
  }

  /** Closes the least recently used idle handles until at most `count` are held. */
  private async keepAtMost(count: number): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const victim of this.held) {
      if (this.held.size <= count) break;
      if (victim.busy > 0 || victim.handle === undefined) continue;
      closing.push(this.drop(victim));
    }
    await Promise.all(closing);
  }

  /** Back to `limit` after reads that found every handle busy (the closes run on their own). */
  trim(): void {
    if (this.held.size > this.limit) void this.keepAtMost(this.limit);
  }

  /** Forgets the source's handle and closes it (errors closing a read-only file are moot). */
  private drop(source: ReopeningSource): Promise<void> {
    const handle = source.handle;
    source.handle = undefined;
    this.held.delete(source);
    return handle === undefined ? Promise.resolve() : handle.close().catch(() => {});
  }

  async release(source: ReopeningSource): Promise<void> {
    await source.opening?.catch(() => {});
    await this.drop(source);
  }
}

/**
 * `open` with at most about `limit` of the files it opens held open at once (see HandlePool):
 * each source it returns closes and reopens its file as the pool needs.
 */
export function openingAtMost(open: OpenByName, limit: number): OpenByName {
  const pool = new HandlePool(open, limit);
  return (name) => pool.openFirst(name);
}
