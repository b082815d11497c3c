// gather-elements along the last axis with its indices in a .npy file: an output row needs only
// its data row and its index row, so the indices are read a block of rows at a time into one
// reused buffer instead of whole. For [4096, 4096] int64 indices that is 128 MB less fresh
// memory, whose first touch costs more than reading the same bytes from the page cache again.
//
// Two forms:
// - gatherElementsByRows: the data and the output are held whole, so an error leaves nothing
//   written, whatever the output.
// - streamGatherElementsByRows: the data (a stored tensor in a file) is read by the same blocks
//   of rows, and the output handed on block by block: no fresh memory beyond three blocks. Only
//   for an output that a failure leaves untouched (a file replaced atomically), as an index out of
//   range may be found after the first blocks are written.
// Either way an error is the whole gather's own (whose message names the index's position in the
// whole indices tensor): the first form hands back to the whole gather on any error or on a case
// it does not take; the second runs the whole gather to throw its error.

import { statSync } from 'node:fs';
import {
  createTensor,
  type Dtype,
  dtypeSize,
  gatherElements,
  type OobMode,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import {
  openTensorFile,
  type StoredTensor,
  type TensorFile,
  type TensorStream,
} from '@tensorops/io/node';
import { rangeReadable } from '@tensorops/io/node/internal';

/** Bytes of indices (and, streamed, of data and output) a block of rows holds (at least one row). */
const BLOCK_BYTES = 4 << 20;

/** An open .npy of indices that can be read by blocks of rows, and how. */
interface IndexRows {
  readonly file: TensorFile;
  readonly stored: StoredTensor & { readonly dtype: Dtype; readonly offset: number };
  /** Rows (all dims but the last), the last dim, and the bytes of a row. */
  readonly rows: number;
  readonly width: number;
  readonly rowBytes: number;
}

/** Rows a block holds: `blockBytes` of the widest of the rows it reads or writes, at least one. */
function rowsPerBlock(blockBytes: number, ...rowBytes: number[]): number {
  return Math.max(1, Math.floor(blockBytes / Math.max(...rowBytes)));
}

/**
 * The gather along the last axis with indices read from the .npy at `path` by blocks of rows, or
 * undefined where this does not apply or failed (then gather the whole tensors).
 */
export async function gatherElementsByRows(
  data: Tensor,
  path: string,
  axis: number,
  oob: OobMode,
): Promise<Tensor | undefined> {
  const ids = await openIndexRows(path, data.shape, axis);
  if (ids === undefined) return undefined;
  try {
    const { stored, rows, width, rowBytes } = ids;
    const perBlock = rowsPerBlock(BLOCK_BYTES, rowBytes);
    const dataWidth = data.shape.at(-1) as number;
    const dataRow = dataWidth * dtypeSize(data.dtype);
    const outRow = width * dtypeSize(data.dtype);
    const out = createTensor(data.dtype, stored.shape);
    const buffer = new Uint8Array(Math.min(perBlock, rows) * rowBytes);
    for (let first = 0; first < rows; first += perBlock) {
      const n = Math.min(perBlock, rows - first);
      const block = await readIndexRows(ids, buffer, first, n);
      if (block === undefined) return undefined;
      const dataRows = data.data.subarray(first * dataRow, (first + n) * dataRow);
      const outRows = out.data.subarray(first * outRow, (first + n) * outRow);
      const indexRows = { dtype: stored.dtype, width, bytes: block };
      gatherRows(
        { dtype: data.dtype, width: dataWidth, bytes: dataRows },
        indexRows,
        outRows,
        n,
        oob,
      );
    }
    return out;
  } catch {
    return undefined;
  } finally {
    await ids.file.close();
  }
}

/**
 * The same gather as a stream, with the data tensor `stored` in `dataFile` also read by blocks of
 * rows (`blockBytes` of the widest row kind: tests make it small); undefined where this does not
 * apply (nothing is then closed: the caller still owns `dataFile`). The stream's `close` releases
 * the indices' file; the caller closes `dataFile`.
 */
export async function streamGatherElementsByRows(
  dataFile: TensorFile,
  stored: StoredTensor,
  path: string,
  axis: number,
  oob: OobMode,
  blockBytes = BLOCK_BYTES,
): Promise<{ stream: TensorStream; close: () => Promise<void> } | undefined> {
  if (stored.dtype === undefined || !plainLayout(stored)) return undefined;
  const opened = await openIndexRows(path, stored.shape, axis);
  if (opened === undefined) return undefined;
  // Narrowed once, for the generator below.
  const ids: IndexRows = opened;
  const dtype: Dtype = stored.dtype;
  const offset: number = stored.offset;
  const { rows, width } = ids;
  const item = dtypeSize(dtype);
  const dataWidth = stored.shape.at(-1) as number;
  const dataRow = dataWidth * item;
  const outRow = width * item;
  const perBlock = rowsPerBlock(blockBytes, dataRow, ids.rowBytes, outRow);
  const blockRows = Math.min(perBlock, rows);
  // Two pairs of block buffers: one pair is read into while the other's rows are gathered.
  const buffers = [0, 1].map(() => ({
    data: new Uint8Array(blockRows * dataRow),
    indices: new Uint8Array(blockRows * ids.rowBytes),
  }));
  /** Data and index rows of the block at `first`, read into the buffers of `slot`. */
  async function readBlock(first: number, slot: number): Promise<[Uint8Array, Uint8Array]> {
    const n = Math.min(perBlock, rows - first);
    const { data, indices } = buffers[slot] as (typeof buffers)[number];
    const dataRows = data.subarray(0, n * dataRow);
    const [block, read] = await Promise.all([
      readIndexRows(ids, indices, first, n),
      readFully(dataFile, dataRows, offset + first * dataRow),
    ]);
    if (block === undefined || !read) {
      // Its header was checked against its size: the file was cut short since it was opened.
      const label = block === undefined ? path : dataFile.path;
      throw new TensorOpsError(
        'E_IO',
        `${label}: the file ends before row ${first + n} of ${rows}`,
      );
    }
    return [dataRows, block];
  }
  async function* chunks(options?: { reuse?: boolean }): AsyncIterable<Uint8Array> {
    let outBuffer = new Uint8Array(blockRows * outRow);
    // The next block is read (on libuv's threads) while this one is gathered and written.
    let next = readBlock(0, 0);
    for (let first = 0, slot = 0; first < rows; first += perBlock, slot ^= 1) {
      const n = Math.min(perBlock, rows - first);
      const [dataRows, block] = await next;
      const after = first + perBlock;
      next = after < rows ? readBlock(after, slot ^ 1) : next;
      next.catch(() => {}); // awaited at the next step; a stream left early must not leave it unhandled
      if (options?.reuse !== true && first > 0) outBuffer = new Uint8Array(blockRows * outRow);
      const outRows = outBuffer.subarray(0, n * outRow);
      try {
        const indexRows = { dtype: ids.stored.dtype, width, bytes: block };
        gatherRows({ dtype, width: dataWidth, bytes: dataRows }, indexRows, outRows, n, oob);
      } catch (error) {
        throw await wholeGatherError(dataFile, stored, ids, axis, oob, error);
      }
      yield outRows;
    }
  }
  const stream: TensorStream = { dtype, shape: ids.stored.shape, nbytes: rows * outRow, chunks };
  return { stream, close: () => ids.file.close() };
}

/** A tensor stored little-endian in C order at a known offset, its values as they load. */
function plainLayout(t: StoredTensor): t is StoredTensor & { readonly offset: number } {
  return rangeReadable(t) && t.byteOrder !== 'big';
}

/**
 * The .npy at `path`, open, where its indices can be read by blocks of rows against data of
 * `dataShape` along `axis` (the last); else undefined, with nothing left open.
 */
async function openIndexRows(
  path: string,
  dataShape: readonly number[],
  axis: number,
): Promise<IndexRows | undefined> {
  // A regular file only: a FIFO's bytes would be consumed by the attempt.
  if (!path.toLowerCase().endsWith('.npy') || !isRegularFile(path)) return undefined;
  let file: TensorFile;
  try {
    file = await openTensorFile(path);
  } catch {
    return undefined;
  }
  const stored = file.tensors[0];
  const rank = dataShape.length;
  if (
    stored === undefined ||
    stored.dtype === undefined ||
    !plainLayout(stored) ||
    stored.shape.length !== rank ||
    rank === 0 ||
    (axis !== rank - 1 && axis !== -1) ||
    stored.shape.some((d, k) => k < rank - 1 && d !== dataShape[k])
  ) {
    await file.close();
    return undefined;
  }
  const width = stored.shape[rank - 1] as number;
  const rows = stored.shape.slice(0, -1).reduce((a, b) => a * b, 1);
  if (rows === 0 || width === 0 || (dataShape[rank - 1] as number) === 0) {
    await file.close();
    return undefined;
  }
  const rowBytes = width * dtypeSize(stored.dtype);
  return { file, stored: stored as IndexRows['stored'], rows, width, rowBytes };
}

/** Index rows [first, first + n) into `buffer`; undefined where the file ends first. */
async function readIndexRows(
  { file, stored, rowBytes }: IndexRows,
  buffer: Uint8Array,
  first: number,
  n: number,
): Promise<Uint8Array | undefined> {
  const bytes = buffer.subarray(0, n * rowBytes);
  return (await readFully(file, bytes, stored.offset + first * rowBytes)) ? bytes : undefined;
}

/** Values of one dtype, `width` of them a row, in rows of bytes. */
interface Rows {
  readonly dtype: Dtype;
  readonly width: number;
  readonly bytes: Uint8Array;
}

/** The gather of `n` rows: data rows and index rows in, output rows out (core checks each index). */
function gatherRows(data: Rows, indices: Rows, out: Uint8Array, n: number, oob: OobMode): void {
  gatherElements(
    { dtype: data.dtype, shape: [n, data.width], data: data.bytes },
    { dtype: indices.dtype, shape: [n, indices.width], data: indices.bytes },
    { axis: 1, oob, out: { dtype: data.dtype, shape: [n, indices.width], data: out } },
  );
}

/** The error of the gather on the whole tensors (read whole for it), else `error` itself. */
async function wholeGatherError(
  dataFile: TensorFile,
  stored: StoredTensor,
  ids: IndexRows,
  axis: number,
  oob: OobMode,
  error: unknown,
): Promise<unknown> {
  try {
    gatherElements(await dataFile.read(stored), await ids.file.read(ids.stored), { axis, oob });
  } catch (whole) {
    return whole;
  }
  return error;
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Fills `target` from `position` of the file; false where the file ends first. */
async function readFully(
  file: { readAt(target: Uint8Array, position: number): Promise<number> },
  target: Uint8Array,
  position: number,
): Promise<boolean> {
  for (let done = 0; done < target.length; ) {
    const n = await file.readAt(target.subarray(done), position + done);
    if (n === 0) return false;
    done += n;
  }
  return true;
}
