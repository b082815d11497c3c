// Optional abilities of a byte source or a tensor file, each an interface of its own with a guard
// that probes for it. A source needs none of them: every reader and the ranged gather work with
// read() alone. Sources that have an ability declare it, and the code that can use it asks.

import type { RangeRead } from '../remote/coalesce.js';

/**
 * Fills many ranges at once, merging them into few requests (HTTP, a Blob's slices). Having it
 * says that every read is a round trip, so executors read only what they need, never whole regions.
 */
export interface RangeBatchReader {
  /** Fills every read; each lies within the source. */
  readMany(reads: readonly RangeRead[]): Promise<void>;
}

/** Holds its bytes in memory, so that they can be used in place. */
export interface InMemoryBytes {
  /** The `length` bytes at `position` without a copy; undefined for a range it does not hold. */
  bytesInMemory(position: number, length: number): Uint8Array | undefined;
}

/** Can free the bytes it will not be asked for again (a temp copy of a pipe). */
export interface Releasable {
  /** No byte at or after `position` will be read again. */
  release(position: number): void;
}

/**
 * Reads without leaving the calling thread (a local file). Worth it for small reads, where a
 * thread-pool round trip costs more than the page-cache copy itself; it blocks while it reads.
 */
export interface InPlaceReader {
  /** As ByteSource.read, done before it returns. */
  readInPlace(target: Uint8Array, position: number): number;
}

/** An open file descriptor (the zip reader reads a directory through it). */
export interface FileDescriptor {
  readonly fd: number;
}

export function canReadMany<T extends object>(x: T): x is T & RangeBatchReader {
  return typeof (x as Partial<RangeBatchReader>).readMany === 'function';
}

export function holdsBytes<T extends object>(x: T): x is T & InMemoryBytes {
  return typeof (x as Partial<InMemoryBytes>).bytesInMemory === 'function';
}

export function canRelease<T extends object>(x: T): x is T & Releasable {
  return typeof (x as Partial<Releasable>).release === 'function';
}

export function readsInPlace<T extends object>(x: T): x is T & InPlaceReader {
  return typeof (x as Partial<InPlaceReader>).readInPlace === 'function';
}

export function hasDescriptor<T extends object>(x: T): x is T & FileDescriptor {
  return typeof (x as Partial<FileDescriptor>).fd === 'number';
}

/** The part of `bytes` an InMemoryBytes hands out: undefined when it is absent or too short. */
export function rangeOf(
  bytes: Uint8Array | undefined,
  position: number,
  length: number,
): Uint8Array | undefined {
  if (bytes === undefined || position < 0 || position + length > bytes.length) return undefined;
  return bytes.subarray(position, position + length);
}
