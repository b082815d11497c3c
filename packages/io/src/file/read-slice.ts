// Part of a stored tensor, as numpy's basic slicing picks it, reading only the bytes it needs: the
// strided runs of slice/segments.ts, filled chunk by chunk. Runs that lie close together are read
// as one span (at most NEAR_GAP bytes between them are read along), a batch of spans at a time; a
// source that reads many ranges at once (HTTP, a Blob) gets each batch in one call, which merges
// them into few requests. A tensor whose bytes are not range-readable (a compressed .npz member, a
// Fortran-order array, a format that must decode it) is streamed as far as the last byte the
// slice needs and sliced in memory. Memory is bounded by a chunk, its bookkeeping and a batch's
// scratch; reads by the result plus NEAR_GAP per run, never by the tensor.

import { type Dtype, dtypeSize, TensorOpsError } from '@tensorops/core';
import { swapBytesInPlace } from '../layout.js';
import { type FittedSlice, keepsAll } from '../slice/fit.js';
import { type ByteRun, copyRun, slicedBytes, sliceRuns } from '../slice/segments.js';
import { quote } from '../text.js';
import { canReadMany } from './capabilities.js';
import { fileError } from './errors.js';
import {
  loadableDtype,
  rangeReadable,
  STREAM_CHUNK_BYTES,
  type StoredTensor,
  swapUnitOf,
  type TensorFile,
} from './stored.js';
import type { TensorStream } from './tensor-stream.js';

/** Runs closer than this are read as one span, the bytes between them read along. */
const NEAR_GAP = 4096;
/** Scratch memory for the spans of one batch of reads. */
const SCRATCH_BYTES = 16 << 20;
/** A span read for several runs is at most this long. */
const MAX_SPAN = 1 << 20;

/** Part of a strided run placed in a chunk: its runs go packed from `at` on. */
interface Fill extends ByteRun {
  readonly at: number;
}

/** Bookkeeping units per chunk at most (a fill, or each run of a sparse one, is one). */
const MAX_FILLS = 1 << 16;

/** True when a strided run's runs lie too far apart to be read as one span. */
const isSparse = (run: ByteRun): boolean =>
  run.count > 1 && Math.abs(run.stride) - run.length > NEAR_GAP;

/** The part `fitted` picks of the stored tensor `stored`, in bounded chunks. */
export function sliceOfStored(
  file: TensorFile,
  stored: StoredTensor,
  fitted: FittedSlice,
): TensorStream {
  if (keepsAll(fitted, stored.shape)) return file.stream(stored);
  let dtype: Dtype;
  try {
    dtype = loadableDtype(stored);
  } catch (cause) {
    throw fileError(file.path, 'read', cause);
  }
  const nbytes = slicedBytes(fitted, dtype);
  return {
    dtype,
    shape: fitted.shape,
    nbytes,
    chunks: () => slicedChunks(file, stored, fitted, dtype, nbytes),
  };
}

async function* slicedChunks(
  file: TensorFile,
  stored: StoredTensor,
  fitted: FittedSlice,
  dtype: Dtype,
  nbytes: number,
): AsyncIterable<Uint8Array> {
  if (nbytes === 0) return;
  let fetch: (out: Uint8Array, fills: readonly Fill[]) => Promise<void>;
  let swapUnit = 1;
  if (rangeReadable(stored)) {
    const offset = stored.offset as number;
    if (offset + stored.nbytes > file.size) {
      throw new TensorOpsError(
        'E_FORMAT',
        `${file.path}: data truncated: tensor ${quote(stored.name ?? '')} needs bytes up to offset ${offset + stored.nbytes}, the file ends at ${file.size}`,
      );
    }
    fetch = (out, fills) => fetchFromFile(file, offset, out, fills);
    swapUnit = swapUnitOf(stored, dtype);
  } else {
    const end = lastByteOf(fitted, stored, dtype);
    const data = await leadingBytes(file.stream(stored), end, file.path);
    fetch = async (out, fills) => {
      for (const f of fills) copyRun(data, 0, f, out, f.at);
    };
  }
  const item = Math.max(1, dtypeSize(dtype));
  const chunkBytes = Math.max(item, Math.floor(STREAM_CHUNK_BYTES / item) * item);
  let produced = 0;
  let out = new Uint8Array(Math.min(chunkBytes, nbytes));
  let fill = 0;
  let units = 0;
  let fills: Fill[] = [];
  for (const run of sliceRuns(fitted, stored.shape, dtype)) {
    const { length, stride } = run;
    const sparse = isSparse(run);
    // Whole runs while they fit the chunk; a run longer than the room left is cut, and since
    // chunks and runs are whole elements every cut falls between elements.
    for (let e = 0, partial = 0; e < run.count; ) {
      const room = out.length - fill;
      const position = run.position + e * stride;
      if (partial === 0 && length <= room) {
        let m = Math.min(run.count - e, Math.floor(room / length));
        if (sparse) m = Math.min(m, MAX_FILLS - units);
        fills.push({ position, length, count: m, stride, at: fill });
        units += sparse ? m : 1;
        fill += m * length;
        e += m;
      } else {
        const take = Math.min(length - partial, room);
        fills.push({ position: position + partial, length: take, count: 1, stride: 0, at: fill });
        units++;
        fill += take;
        partial += take;
        if (partial === length) {
          partial = 0;
          e++;
        }
      }
      if (fill === out.length || units >= MAX_FILLS) {
        const chunk = out.subarray(0, fill);
        await fetch(chunk, fills);
        swapBytesInPlace(chunk, swapUnit);
        yield chunk;
        produced += fill;
        if (produced === nbytes) return;
        out = new Uint8Array(Math.min(chunkBytes, nbytes - produced));
        fill = 0;
        units = 0;
        fills = [];
      }
    }
  }
}

/** The first byte of a strided run and the end of its last, counted as its positions are. */
function extent(run: ByteRun): { lo: number; hi: number } {
  const last = run.position + (run.count - 1) * run.stride;
  return { lo: Math.min(run.position, last), hi: Math.max(run.position, last) + run.length };
}

/** Where the last byte the slice needs ends, counted from the tensor's first byte. */
function lastByteOf(fitted: FittedSlice, stored: StoredTensor, dtype: Dtype): number {
  let end = 0;
  for (const run of sliceRuns(fitted, stored.shape, dtype)) end = Math.max(end, extent(run).hi);
  return end;
}

/**
 * The first `length` bytes of a tensor that cannot be read by range, from its stream: the stream
 * stops there (a deflated member is inflated only that far; `--head` of it reads its head).
 */
async function leadingBytes(
  stream: TensorStream,
  length: number,
  path: string,
): Promise<Uint8Array> {
  const data = new Uint8Array(length);
  let at = 0;
  for await (const chunk of stream.chunks()) {
    const take = Math.min(chunk.byteLength, length - at);
    data.set(chunk.subarray(0, take), at);
    at += take;
    if (at === length) break;
  }
  if (at !== length) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${path}: tensor stream produced ${at} bytes, expected at least ${length}`,
    );
  }
  return data;
}

/**
 * The fills as pieces that are each one read: a sparse fill's runs apart, a dense one's cut where
 * its span would pass MAX_SPAN.
 */
function piecesOf(fills: readonly Fill[]): Fill[] {
  const pieces: Fill[] = [];
  for (const f of fills) {
    const sparse = isSparse(f);
    const most = sparse ? 1 : Math.max(1, Math.floor(MAX_SPAN / Math.max(1, Math.abs(f.stride))));
    for (let e = 0; e < f.count; e += most) {
      const count = Math.min(most, f.count - e);
      pieces.push({ ...f, position: f.position + e * f.stride, count, at: f.at + e * f.length });
    }
  }
  return pieces;
}

/**
 * Fills `out` from the file, the fills' positions counted from the tensor's first byte at
 * `offset`. Pieces closer than NEAR_GAP are read as one span: the gap costs less than a request
 * or a read call. A span of one run is read straight into `out`.
 */
async function fetchFromFile(
  file: TensorFile,
  offset: number,
  out: Uint8Array,
  fills: readonly Fill[],
): Promise<void> {
  const sorted = piecesOf(fills)
    .map((piece) => ({ piece, ...extent(piece) }))
    .sort((a, b) => a.lo - b.lo);
  // Spans are read a batch at a time, their scratch buffers together at most SCRATCH_BYTES.
  let batch: Span[] = [];
  let scratch = 0;
  for (let i = 0; i < sorted.length; ) {
    const { lo, piece } = sorted[i] as (typeof sorted)[number];
    let { hi } = sorted[i] as (typeof sorted)[number];
    let j = i + 1;
    for (; j < sorted.length; j++) {
      const next = sorted[j] as (typeof sorted)[number];
      if (next.lo - hi > NEAR_GAP || next.hi - lo > MAX_SPAN) break;
      hi = Math.max(hi, next.hi);
    }
    const direct = j === i + 1 && piece.count === 1;
    if (!direct && scratch + (hi - lo) > SCRATCH_BYTES) {
      await readSpans(file, offset, out, batch);
      batch = [];
      scratch = 0;
    }
    const target = direct
      ? out.subarray(piece.at, piece.at + piece.length)
      : new Uint8Array(hi - lo);
    if (!direct) scratch += hi - lo;
    batch.push({ position: offset + lo, target, pieces: sorted.slice(i, j).map((x) => x.piece) });
    i = j;
  }
  await readSpans(file, offset, out, batch);
}

/** One read: `target` filled from `position`, then its pieces copied to the chunk. */
interface Span {
  readonly position: number;
  readonly target: Uint8Array;
  readonly pieces: readonly Fill[];
}

/** Reads the spans (with readMany where the file has it) and copies their pieces to `out`. */
async function readSpans(
  file: TensorFile,
  offset: number,
  out: Uint8Array,
  spans: readonly Span[],
): Promise<void> {
  if (canReadMany(file)) {
    try {
      await file.readMany(spans);
    } catch (cause) {
      throw fileError(file.path, 'read', cause);
    }
  } else {
    for (const span of spans) await readExact(file, span.target, span.position);
  }
  for (const span of spans) {
    const direct = span.pieces.length === 1 && (span.pieces[0] as Fill).count === 1;
    if (direct) continue;
    for (const piece of span.pieces) {
      copyRun(span.target, span.position - offset, piece, out, piece.at);
    }
  }
}

async function readExact(file: TensorFile, target: Uint8Array, position: number): Promise<void> {
  let got: number;
  try {
    got = await file.readAt(target, position);
  } catch (cause) {
    throw fileError(file.path, 'read', cause);
  }
  if (got !== target.length) {
    throw new TensorOpsError(
      'E_FORMAT',
      `${file.path}: data truncated: needs bytes up to offset ${position + target.length}, the file ends at ${position + got}`,
    );
  }
}
