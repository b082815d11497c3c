// Stream sweep: a gather from a .npy that arrives on a pipe, which can be read only once, in
// order. The data is read into two windows that take turns (the next is read while the blocks of
// this one are copied out), and each picked block is copied out of its window as it passes, into
// an output held whole (its picks come in any order). The blocks are bucketed by where they start
// (span-buckets.ts), in about one bucket per output block at most, and the output's chunks are
// allocated as data arrives to fill them: a header that lies about its size costs what the pipe
// really holds. Memory: the output, the two windows, and numbers sized by the indices (the plan's
// positions, the buckets); the data is never held whole.

import {
  dtypeSize,
  type GatherOptions,
  type GatherPlan,
  gather,
  planGather,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import { swapBytesInPlace } from '../../layout.js';
import type { NpyHeader } from '../../npy.js';
import { npyStoredTensor } from '../npy-file.js';
import { rangeReadable, swapUnitOf } from '../stored.js';
import type { TensorStream } from '../tensor-stream.js';
import { DEFAULT_CHUNK_BYTES } from './context.js';
import { bucketBySpan, sourceOffset } from './span-buckets.js';

/** A .npy on a stream: its header, read from the first bytes, then its data as asked for. */
export interface NpyOnStream {
  /** Names the stream in messages. */
  readonly label: string;
  readonly header: NpyHeader;
  /** The header's bytes as they came (magic, version, length and dict), for a copy of the file. */
  readonly headerBytes: Uint8Array;
  /**
   * Fills `target` with the next data bytes, never reading past the data the header declares;
   * fewer only where the stream (or the declared data) ends.
   */
  read(target: Uint8Array): Promise<number>;
  /** All the declared data (one allocation of the declared size) as a tensor. */
  readTensor(): Promise<Tensor>;
  /** Stops reading: what follows is never read. */
  close(): Promise<void>;
}

export interface StreamGatherOptions extends GatherOptions {
  /** Output chunk size in bytes (default 8 MiB). */
  readonly chunkBytes?: number;
  /** Read window in bytes (default 512 KiB); two of them are the memory the data costs. */
  readonly windowBytes?: number;
}

/** The output stream; 'loaded' when the data must be read whole first (Fortran order). */
export interface StreamGatherStream extends TensorStream {
  readonly mode: 'stream-sweep' | 'loaded';
}

const DEFAULT_WINDOW = 512 << 10;
/** Spans of the bucketing beyond one per output block (see spanOf). */
const SPARE_SPANS = 1024;

/**
 * Gathers `indices` along an axis of the .npy on `npy` (numpy take / ONNX Gather semantics, as
 * core's `gather`), reading its data once, in order. Validates the axis, batch dims and every
 * index before reading any data. A stream that ends before its declared data is an E_FORMAT
 * error from the output stream. Does not close `npy`.
 */
export function gatherFromNpyStream(
  npy: NpyOnStream,
  indices: Tensor,
  options: StreamGatherOptions = {},
): StreamGatherStream {
  const { header } = npy;
  const plan = planGather(header, indices, options);
  const item = dtypeSize(header.dtype);
  let elements = 1;
  for (const d of plan.outShape) elements *= d;
  const base = { dtype: header.dtype, shape: plan.outShape, nbytes: elements * item };
  const stored = npyStoredTensor(header);
  if (!rangeReadable(stored))
    return { ...base, mode: 'loaded', chunks: loadedGather(npy, indices, options) };
  const multiple = (bytes: number): number => Math.max(item, Math.floor(bytes / item) * item);
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const sweep = {
    plan,
    npy,
    nbytes: base.nbytes,
    // Whole blocks per output chunk where a chunk holds one, so that a block lands in one chunk.
    chunkBytes:
      plan.blockBytes > 0 && plan.blockBytes <= chunkBytes
        ? Math.floor(chunkBytes / plan.blockBytes) * plan.blockBytes
        : multiple(chunkBytes),
    windowBytes: multiple(options.windowBytes ?? DEFAULT_WINDOW),
    swapUnit: swapUnitOf(stored, header.dtype),
  };
  // The indices are not kept: the plan's positions hold all the sweep needs.
  return { ...base, mode: 'stream-sweep', chunks: () => streamSweep(sweep) };
}

/** Fortran order needs all of the data for its transpose: one read of the declared bytes. */
function loadedGather(
  npy: NpyOnStream,
  indices: Tensor,
  options: GatherOptions,
): () => AsyncIterable<Uint8Array> {
  return async function* () {
    yield gather(await npy.readTensor(), indices, options).data;
  };
}

interface StreamSweep {
  readonly plan: GatherPlan;
  readonly npy: NpyOnStream;
  readonly nbytes: number;
  readonly chunkBytes: number;
  readonly windowBytes: number;
  readonly swapUnit: number;
}

/**
 * The output, held as chunks allocated on their first write: a header that declares huge rows
 * costs memory only as far as data arrives to fill them.
 */
class OutputChunks {
  private readonly chunks: (Uint8Array | undefined)[];

  constructor(
    private readonly nbytes: number,
    private readonly chunkBytes: number,
  ) {
    this.chunks = new Array(Math.ceil(nbytes / chunkBytes));
  }

  /** Copies `src` to output byte `at` (across chunk ends when it must). */
  put(src: Uint8Array, at: number): void {
    let done = 0;
    while (done < src.length) {
      const c = Math.floor((at + done) / this.chunkBytes);
      const within = at + done - c * this.chunkBytes;
      const chunk = this.chunk(c);
      const take = Math.min(src.length - done, chunk.length - within);
      // A subarray per block would dominate for small blocks; copy those byte by byte.
      if (take <= 64) for (let i = 0; i < take; i++) chunk[within + i] = src[done + i] as number;
      else
        chunk.set(
          done === 0 && take === src.length ? src : src.subarray(done, done + take),
          within,
        );
      done += take;
    }
  }

  /** The chunks in order (zeros where nothing was written), each released once handed out. */
  *drain(): Iterable<Uint8Array> {
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunk(c);
      this.chunks[c] = undefined;
      yield chunk;
    }
  }

  private chunk(c: number): Uint8Array {
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      chunk = new Uint8Array(Math.min(this.chunkBytes, this.nbytes - c * this.chunkBytes));
      // Its fresh pages faulted in order, at once, rather than where scattered blocks land.
      chunk.fill(0);
      this.chunks[c] = chunk;
    }
    return chunk;
  }
}

/**
 * The bucketing span: whole windows, and never more spans than about one per output block, so
 * that its counters are sized by the indices, not by what a header declares.
 */
function spanOf(s: StreamSweep, total: number): number {
  const { batch, outer, perBatch } = s.plan;
  const windows = Math.ceil(total / s.windowBytes);
  return s.windowBytes * Math.max(1, Math.ceil(windows / (batch * outer * perBatch + SPARE_SPANS)));
}

/** Reads the window at data offset `at` whole; a stream that ends first is a truncated .npy. */
async function readWindow(s: StreamSweep, view: Uint8Array, at: number, total: number) {
  const got = await s.npy.read(view);
  if (got < view.length) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${s.npy.label}: .npy data truncated: header claims ${total} bytes, the stream ended after ${at + got}`,
    );
  }
  return view;
}

async function* streamSweep(s: StreamSweep): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, blockBytes } = s.plan;
  const total = batch * outer * axisSize * blockBytes;
  const span = spanOf(s, total);
  const { starts, order } = bucketBySpan(s.plan, span);
  const out = new OutputChunks(s.nbytes, s.chunkBytes);
  const w = Math.min(total, s.windowBytes);
  // Two windows take turns: the next is read while the blocks of this one are copied out.
  const windows = [new Uint8Array(w), new Uint8Array(total > w ? w : 0)];
  const windowAt = (at: number): Promise<Uint8Array> => {
    const view = (windows[(at / w) % 2] as Uint8Array).subarray(0, Math.min(w, total - at));
    const read = readWindow(s, view, at, total);
    // Observed when awaited; this only keeps a failure unreported if the consumer leaves first.
    read.catch(() => {});
    return read;
  };
  // Output blocks that began in an earlier window and go on into later ones.
  let open: number[] = [];
  let next = total > 0 ? windowAt(0) : undefined;
  for (let at = 0; next !== undefined; at += w) {
    const view = await next;
    next = at + w < total ? windowAt(at + w) : undefined;
    const end = at + view.length;
    const bucket = Math.floor(at / span);
    const first = starts[bucket] as number;
    const last = starts[bucket + 1] as number;
    if (open.length === 0 && first === last) continue;
    swapBytesInPlace(view, s.swapUnit);
    const stillOpen: number[] = [];
    // Copies the part of output block k (source offset `from`) that lies in this window.
    const copy = (k: number, from: number): void => {
      const lo = Math.max(from, at);
      const hi = Math.min(from + blockBytes, end);
      out.put(view.subarray(lo - at, hi - at), k * blockBytes + lo - from);
      if (from + blockBytes > end) stillOpen.push(k);
    };
    for (const k of open) copy(k, sourceOffset(s.plan, k));
    // A bucket spanning several windows holds blocks of later windows too: only those starting
    // in this one begin here.
    for (let slot = first; slot < last; slot++) {
      const k = order[slot] as number;
      const from = sourceOffset(s.plan, k);
      if (from >= at && from < end) copy(k, from);
    }
    open = stillOpen;
  }
  yield* out.drain();
}
