// Gather of one-item blocks (the axis is the last dim, or the dims after it are 1) through the
// wasm gather kernel: out[b, o, k] = data[b, o, positions[b, k]]. The caller uses it where the
// JavaScript walk would be 'touch-rows' (rows of at most 4 MiB that the gather reads densely):
// there every data row is read whole anyway, so staging it into wasm
// memory (a memmove) costs about what the touch pass did, and the kernel then gathers from cache.
import type { GatherPlan } from '../gather.js';
import { STAGING_SIZES, type StagingSizes } from './gather-elements.js';
import { wasmKernels } from './runtime.js';

/**
 * Runs the plan into `dst`; false when WebAssembly is unavailable or a step does not fit the
 * staging cap (nothing is written then). The plan's positions must be valid (no ZERO_FILL: the
 * plan of a gather with oob 'error').
 */
export function gatherWasm(
  plan: GatherPlan,
  src: Uint8Array,
  dst: Uint8Array,
  sizes: StagingSizes = STAGING_SIZES,
): boolean {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = plan;
  const kernels = wasmKernels(dst.byteLength);
  const kernel = kernels?.gather[blockBytes];
  if (kernels == null || kernel === undefined || !(positions instanceof Int32Array)) return false;
  const idxBytes = perBatch * 4;
  const rowBytes = axisSize * blockBytes;
  const outRowBytes = perBatch * blockBytes;
  const rowsPerStep = Math.min(
    outer,
    Math.max(1, Math.floor(sizes.stepBytes / (rowBytes + outRowBytes))),
  );
  const mem = kernels.staging(idxBytes + rowsPerStep * (rowBytes + outRowBytes));
  if (mem === null) return false;
  const positionBytes = new Uint8Array(
    positions.buffer,
    positions.byteOffset,
    positions.byteLength,
  );
  for (let b = 0; b < batch; b++) {
    // This batch entry's positions stay staged at offset 0 while its rows go through.
    mem.set(positionBytes.subarray(b * idxBytes, (b + 1) * idxBytes), 0);
    for (let o = 0; o < outer; o += rowsPerStep) {
      const rows = Math.min(rowsPerStep, outer - o);
      const dataAt = idxBytes;
      const outAt = dataAt + rows * rowBytes;
      const row = b * outer + o;
      mem.set(src.subarray(row * rowBytes, (row + rows) * rowBytes), dataAt);
      // Positions were checked when planned, which is what lets the kernel skip the checks.
      kernel(dataAt, rowBytes, 0, outAt, rows, perBatch);
      dst.set(mem.subarray(outAt, outAt + rows * outRowBytes), row * outRowBytes);
    }
  }
  return true;
}
