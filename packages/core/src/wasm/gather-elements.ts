// GatherElements through the wasm take kernel (runtime.ts), for the fused case of
// gather-elements.ts: int32/int64 indices, oob 'error', items of 1, 2, 4 or 8 bytes, inner dims
// equal to data's. The work is cut into steps whose bytes fit a few MiB of staging memory:
// stage the data rows or tile a step reads, stage its indices, run the kernel, copy the output
// out. Staging is memmove (TypedArray.set) from and to the caller's buffers, so it runs near
// memory speed; the kernel then reads from cache.
import { type TakeKernel, type WasmKernels, wasmKernels } from './runtime.js';

export interface StagingSizes {
  /** Bytes of data rows + indices + output staged per kernel call (inner = 1). */
  readonly stepBytes: number;
  /**
   * Data bytes of one column tile when the axis is not the last (inner > 1). Output rows pick
   * random rows of the tile, so the tile should stay in cache; on the bench machine (1 MiB L2,
   * 32 MiB L3) 4 MiB tiles were faster than 1 MiB (more staging calls) and than 16 MiB.
   */
  readonly tileBytes: number;
  /** A tile's slice of a data row is at least this long, so staging copies whole cache lines. */
  readonly minSliceBytes: number;
}

/** Tests pass tiny sizes to run the multi-step and multi-tile walks on small tensors. */
export const STAGING_SIZES: StagingSizes = {
  stepBytes: 1024 * 1024,
  tileBytes: 4 * 1024 * 1024,
  minSliceBytes: 256,
};

export interface ElementsWalk {
  readonly itemBytes: number;
  readonly indexBytes: 4 | 8;
  /** prod(indices.shape[:axis]); indicesAxisSize = indices.shape[axis]; inner = prod(after axis). */
  readonly outer: number;
  readonly indicesAxisSize: number;
  readonly inner: number;
  /** data.shape[axis]; data's inner size equals `inner`, so it is also the axis stride / inner. */
  readonly axisSize: number;
  /** Data element offset of each outer position. */
  readonly outerOffsets: Int32Array | Float64Array;
}

/**
 * Runs the walk: 'done', 'invalid' when an index is out of range (`dst` is then partly
 * written; the caller reports the error), or 'unsupported' when WebAssembly is unavailable or a
 * step would not fit the staging cap (the caller uses its JavaScript loop).
 */
export function gatherElementsWasm(
  walk: ElementsWalk,
  data: Uint8Array,
  indices: Uint8Array,
  dst: Uint8Array,
  sizes: StagingSizes = STAGING_SIZES,
): 'done' | 'invalid' | 'unsupported' {
  const kernels = wasmKernels(dst.byteLength);
  const take = kernels?.take[walk.indexBytes]?.[walk.itemBytes];
  if (kernels == null || take === undefined) return 'unsupported';
  return walk.inner === 1
    ? lastAxis(walk, take, kernels.staging, data, indices, dst, sizes)
    : tiled(walk, take, kernels.staging, data, indices, dst, sizes);
}

type Staging = WasmKernels['staging'];

/**
 * inner = 1: output row o picks from data row o, which is contiguous. Steps are blocks of whole
 * rows: their data rows (one copy when consecutive in data, else one per row), indices and
 * output are staged side by side.
 */
function lastAxis(
  walk: ElementsWalk,
  take: TakeKernel,
  staging: Staging,
  data: Uint8Array,
  indices: Uint8Array,
  dst: Uint8Array,
  sizes: StagingSizes,
): 'done' | 'invalid' | 'unsupported' {
  const { itemBytes, indexBytes, outer, indicesAxisSize, axisSize, outerOffsets } = walk;
  const rowBytes = axisSize * itemBytes;
  const idxRowBytes = indicesAxisSize * indexBytes;
  const outRowBytes = indicesAxisSize * itemBytes;
  const perRow = rowBytes + idxRowBytes + outRowBytes;
  const rowsPerStep = Math.max(1, Math.floor(sizes.stepBytes / perRow));
  const mem = staging(Math.min(rowsPerStep, outer) * perRow);
  if (mem === null) return 'unsupported';
  for (let o = 0; o < outer; o += rowsPerStep) {
    const rows = Math.min(rowsPerStep, outer - o);
    const dataAt = 0;
    const idxAt = rows * rowBytes;
    const outAt = idxAt + rows * idxRowBytes;
    const first = (outerOffsets[o] as number) * itemBytes;
    const last = (outerOffsets[o + rows - 1] as number) * itemBytes;
    // Offsets rise by at least a row per step, so equal ends mean every row is adjacent.
    if (last - first === (rows - 1) * rowBytes) {
      mem.set(data.subarray(first, first + rows * rowBytes), dataAt);
    } else {
      for (let r = 0; r < rows; r++) {
        const from = (outerOffsets[o + r] as number) * itemBytes;
        mem.set(data.subarray(from, from + rowBytes), dataAt + r * rowBytes);
      }
    }
    mem.set(indices.subarray(o * idxRowBytes, (o + rows) * idxRowBytes), idxAt);
    if (
      take(
        dataAt,
        rowBytes,
        itemBytes,
        0,
        idxAt,
        idxRowBytes,
        outAt,
        rows,
        indicesAxisSize,
        axisSize,
      ) !== 0
    ) {
      return 'invalid';
    }
    dst.set(mem.subarray(outAt, outAt + rows * outRowBytes), o * outRowBytes);
  }
  return 'done';
}

/**
 * inner > 1: output (o, a, j) reads data (o, p, j) for a random p, so one output row touches every
 * data row. The data block of each outer position is cut into column tiles of `width` inner
 * positions; a tile's slice of every data row is staged once, then the output rows go through it
 * in steps. When the whole block fits a tile, every copy is one contiguous range.
 */
function tiled(
  walk: ElementsWalk,
  take: TakeKernel,
  staging: Staging,
  data: Uint8Array,
  indices: Uint8Array,
  dst: Uint8Array,
  sizes: StagingSizes,
): 'done' | 'invalid' | 'unsupported' {
  const { itemBytes, indexBytes, outer, indicesAxisSize, inner, axisSize, outerOffsets } = walk;
  const dataRowBytes = inner * itemBytes;
  const fit = Math.floor(sizes.tileBytes / Math.max(axisSize * itemBytes, 1));
  const width = Math.min(inner, Math.max(fit, Math.ceil(sizes.minSliceBytes / itemBytes)));
  const sliceBytes = width * itemBytes;
  const tileBytes = axisSize * sliceBytes;
  const rowsPerStep = Math.max(1, Math.floor(sizes.stepBytes / (width * (indexBytes + itemBytes))));
  const stepRows = Math.min(rowsPerStep, indicesAxisSize);
  const mem = staging(tileBytes + stepRows * width * (indexBytes + itemBytes));
  if (mem === null) return 'unsupported';
  const whole = width === inner;
  for (let o = 0; o < outer; o++) {
    const block = (outerOffsets[o] as number) * itemBytes;
    const firstRow = o * indicesAxisSize;
    for (let j0 = 0; j0 < inner; j0 += width) {
      const w = Math.min(width, inner - j0);
      const slice = w * itemBytes;
      if (whole) {
        mem.set(data.subarray(block, block + axisSize * dataRowBytes), 0);
      } else {
        for (let p = 0; p < axisSize; p++) {
          const from = block + p * dataRowBytes + j0 * itemBytes;
          mem.set(data.subarray(from, from + slice), p * slice);
        }
      }
      for (let a = 0; a < indicesAxisSize; a += stepRows) {
        const rows = Math.min(stepRows, indicesAxisSize - a);
        const idxAt = axisSize * slice;
        const outAt = idxAt + rows * w * indexBytes;
        const row = firstRow + a;
        if (whole) {
          mem.set(
            indices.subarray(row * inner * indexBytes, (row + rows) * inner * indexBytes),
            idxAt,
          );
        } else {
          for (let r = 0; r < rows; r++) {
            const from = ((row + r) * inner + j0) * indexBytes;
            mem.set(indices.subarray(from, from + w * indexBytes), idxAt + r * w * indexBytes);
          }
        }
        if (take(0, 0, slice, itemBytes, idxAt, w * indexBytes, outAt, rows, w, axisSize) !== 0) {
          return 'invalid';
        }
        if (whole) {
          dst.set(mem.subarray(outAt, outAt + rows * slice), row * dataRowBytes);
        } else {
          for (let r = 0; r < rows; r++) {
            const at = outAt + r * slice;
            dst.set(mem.subarray(at, at + slice), ((row + r) * inner + j0) * itemBytes);
          }
        }
      }
    }
  }
  return 'done';
}
