// gather-elements along the last axis with its indices in a .npy file: an output row needs only
// its data row and its index row, so the indices are read a block of rows at a time into one
// reused buffer instead of whole. For [4096, 4096] int64 indices that is 128 MB less fresh
// memory, whose first touch costs more than reading the same bytes from the page cache again.
// The data and the output are still held whole, so an error leaves nothing written: any error
// (or a case this does not take) hands back to the whole gather, which throws its own error
// (whose message names the index's position in the whole indices tensor).

import { statSync } from 'node:fs';
import {
  createTensor,
  dtypeSize,
  gatherElements,
  type OobMode,
  type Tensor,
} from '@tensorops/core';
import { openTensorFile } from '@tensorops/io/node';

/** Bytes of indices read at a time (whole rows; at least one row). */
const BLOCK_BYTES = 4 << 20;

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
  // A regular file only: a FIFO's bytes would be consumed by the attempt.
  if (!path.toLowerCase().endsWith('.npy') || !isRegularFile(path)) return undefined;
  let file: Awaited<ReturnType<typeof openTensorFile>>;
  try {
    file = await openTensorFile(path);
  } catch {
    return undefined;
  }
  try {
    const stored = file.tensors[0];
    const rank = data.shape.length;
    if (
      stored === undefined ||
      stored.dtype === undefined ||
      stored.offset === null ||
      stored.fortranOrder ||
      stored.byteOrder === 'big' ||
      stored.shape.length !== rank ||
      rank === 0 ||
      (axis !== rank - 1 && axis !== -1) ||
      stored.shape.some((d, k) => k < rank - 1 && d !== data.shape[k])
    ) {
      return undefined;
    }
    const width = stored.shape[rank - 1] as number;
    const dataWidth = data.shape[rank - 1] as number;
    const rows = stored.shape.slice(0, -1).reduce((a, b) => a * b, 1);
    const item = dtypeSize(stored.dtype);
    const dataRow = dataWidth * dtypeSize(data.dtype);
    if (rows === 0 || width === 0) return undefined;
    const out = createTensor(data.dtype, stored.shape);
    const rowBytes = width * item;
    const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / rowBytes));
    const buffer = new Uint8Array(Math.min(perBlock, rows) * rowBytes);
    const outRow = width * dtypeSize(data.dtype);
    for (let first = 0; first < rows; first += perBlock) {
      const n = Math.min(perBlock, rows - first);
      const bytes = buffer.subarray(0, n * rowBytes);
      if (!(await readFully(file, bytes, stored.offset + first * rowBytes))) return undefined;
      gatherElements(
        tensorOf(
          data.dtype,
          [n, dataWidth],
          data.data.subarray(first * dataRow, (first + n) * dataRow),
        ),
        tensorOf(stored.dtype, [n, width], bytes),
        {
          axis: 1,
          oob,
          out: tensorOf(
            data.dtype,
            [n, width],
            out.data.subarray(first * outRow, (first + n) * outRow),
          ),
        },
      );
    }
    return out;
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function tensorOf(dtype: Tensor['dtype'], shape: number[], data: Uint8Array): Tensor {
  return { dtype, shape, data };
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
