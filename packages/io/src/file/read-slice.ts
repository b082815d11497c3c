// Part of a stored tensor, as numpy's basic slicing picks it, reading only the bytes it needs: the
// runs of slice/segments.ts, filled chunk by chunk. Runs that lie close together are read as one
// span (at most NEAR_GAP bytes between them are read along); a source that reads many ranges at
// once (HTTP, a Blob) gets each chunk's spans in one call, which merges them into few requests. A
// tensor whose bytes are not range-readable (a compressed .npz member, a Fortran-order array, a
// format that must decode it) is streamed as far as the last byte the slice needs and sliced in
// memory. Memory and reads are bounded by the result and its runs, never by the tensor.

import { type Dtype, dtypeSize, TensorOpsError } from '@tensorops/core';
import { swapBytesInPlace } from '../layout.js';
import { type FittedSlice, keepsAll } from '../slice/fit.js';
import { slicedBytes, sliceRuns } from '../slice/segments.js';
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
/** A span read for several runs is at most this long. */
const MAX_SPAN = 1 << 20;

/** A chunk's run bytes: `length` bytes from `position` (in the tensor) to `at` in the chunk. */
interface Fill {
  readonly position: number;
  readonly at: number;
  readonly length: number;
}

/** Runs per chunk at most: the bookkeeping of a chunk stays small however short its runs. */
const MAX_FILLS = 1 << 16;

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
    const data = await leadingBytes(file.stream(stored), lastByteOf(fitted, stored, dtype));
    fetch = async (out, fills) => {
      for (const f of fills) out.set(data.subarray(f.position, f.position + f.length), f.at);
    };
  }
  const item = Math.max(1, dtypeSize(dtype));
  const chunkBytes = Math.max(item, Math.floor(STREAM_CHUNK_BYTES / item) * item);
  let produced = 0;
  let out = new Uint8Array(Math.min(chunkBytes, nbytes));
  let fill = 0;
  let fills: Fill[] = [];
  for (const run of sliceRuns(fitted, stored.shape, dtype)) {
    for (let done = 0; done < run.length; ) {
      // Chunks and runs are whole elements, so every cut falls between elements.
      const take = Math.min(run.length - done, out.length - fill);
      fills.push({ position: run.position + done, at: fill, length: take });
      fill += take;
      done += take;
      if (fill === out.length || fills.length === MAX_FILLS) {
        const chunk = out.subarray(0, fill);
        await fetch(chunk, fills);
        swapBytesInPlace(chunk, swapUnit);
        yield chunk;
        produced += fill;
        if (produced === nbytes) return;
        out = new Uint8Array(Math.min(chunkBytes, nbytes - produced));
        fill = 0;
        fills = [];
      }
    }
  }
}

/** Where the last byte the slice needs ends, counted from the tensor's first byte. */
function lastByteOf(fitted: FittedSlice, stored: StoredTensor, dtype: Dtype): number {
  let end = 0;
  for (const run of sliceRuns(fitted, stored.shape, dtype)) {
    end = Math.max(end, run.position + run.length);
  }
  return end;
}

/**
 * The first `length` bytes of a tensor that cannot be read by range, from its stream: the stream
 * stops there (a deflated member is inflated only that far; `--head` of it reads its head).
 */
async function leadingBytes(stream: TensorStream, length: number): Promise<Uint8Array> {
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
      `tensor stream produced ${at} bytes, expected at least ${length}`,
    );
  }
  return data;
}

/**
 * Fills `out` from the file, the fills' positions counted from the tensor's first byte at
 * `offset`. Runs closer than NEAR_GAP are read as one span: the gap costs less than a request or
 * a read call. A span of one run is read straight into `out`.
 */
async function fetchFromFile(
  file: TensorFile,
  offset: number,
  out: Uint8Array,
  fills: readonly Fill[],
): Promise<void> {
  const sorted = [...fills].sort((a, b) => a.position - b.position);
  const spans: { position: number; target: Uint8Array; fills: readonly Fill[] }[] = [];
  for (let i = 0; i < sorted.length; ) {
    const first = sorted[i] as Fill;
    let end = first.position + first.length;
    let j = i + 1;
    for (; j < sorted.length; j++) {
      const next = sorted[j] as Fill;
      const nextEnd = next.position + next.length;
      if (next.position - end > NEAR_GAP || nextEnd - first.position > MAX_SPAN) break;
      end = Math.max(end, nextEnd);
    }
    const target =
      j === i + 1
        ? out.subarray(first.at, first.at + first.length)
        : new Uint8Array(end - first.position);
    spans.push({ position: offset + first.position, target, fills: sorted.slice(i, j) });
    i = j;
  }
  if (canReadMany(file)) {
    try {
      await file.readMany(spans);
    } catch (cause) {
      throw fileError(file.path, 'read', cause);
    }
  } else {
    for (const s of spans) await readExact(file, s.target, s.position);
  }
  for (const span of spans) {
    if (span.fills.length === 1) continue;
    const base = span.position - offset;
    for (const f of span.fills) {
      out.set(span.target.subarray(f.position - base, f.position - base + f.length), f.at);
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
