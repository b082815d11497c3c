// core's WebAssembly kernels: one small module of scalar code (wasm/kernels.wat), loaded through
// instantiate.ts on first use.
//
// Why WebAssembly: a JavaScript gather moves 4 bytes per typed-array access, each one
// bounds-checked, and reads int64 indices as two int32 halves. The same loop in wasm does one
// native i64 load, one unsigned compare and one load/store per element. Wasm code can only address its own memory, so callers stage the bytes a
// step needs into it and copy the result out (instantiate.ts).

import { type WasmInstance, wasmModule } from './instantiate.js';
import { KERNELS_WASM } from './kernels-binary.js';

/**
 * `take_<index>_<item>`: for a < rows, j < width, k = a * width + j, with p the index at
 * `idx + a * idxRowStep + j * indexBytes` (negative counts from bound):
 * out[k] = item at `data + a * rowStep + p * posStride + j * colStep`.
 * Byte offsets into the module memory. Returns 0, or k + 1 of the first index outside
 * [-bound, bound); nothing after that element is written.
 */
export type TakeKernel = (
  data: number,
  rowStep: number,
  posStride: number,
  colStep: number,
  idx: number,
  idxRowStep: number,
  out: number,
  rows: number,
  width: number,
  bound: number,
) => number;

/**
 * `gather_<item>`: for a < rows, j < width: out[a * width + j] = item at
 * `data + a * rowStep + idx[j] * itemBytes`, idx being `width` int32 positions that the caller has
 * checked to lie inside a row (unchecked: a bad one reads the wrong bytes or traps). Byte offsets
 * into the module memory.
 */
export type GatherKernel = (
  data: number,
  rowStep: number,
  idx: number,
  out: number,
  rows: number,
  width: number,
) => void;

export interface WasmKernels {
  /** take[indexBytes][itemBytes] for index widths 4 (int32) and 8 (int64), items of 1, 2, 4, 8. */
  readonly take: Readonly<Record<number, Readonly<Record<number, TakeKernel>>>>;
  /** gather[itemBytes] for items of 1, 2, 4, 8 bytes. */
  readonly gather: Readonly<Record<number, GatherKernel>>;
  /** A view of the whole memory, at least `bytes` long (grows it), or null above the cap. */
  staging(bytes: number): Uint8Array | null;
}

/**
 * The instantiated kernels for an op writing `outputBytes`, or null when WebAssembly is
 * unavailable or turned off, or the output is small.
 */
export const wasmKernels: (outputBytes: number) => WasmKernels | null = wasmModule(
  KERNELS_WASM,
  bindKernels,
);

function bindKernels({ exports, staging }: WasmInstance): WasmKernels {
  const take: Record<number, Record<number, TakeKernel>> = { 4: {}, 8: {} };
  for (const [indexBytes, name] of [
    [4, 'i32'],
    [8, 'i64'],
  ] as const) {
    for (const itemBytes of [1, 2, 4, 8]) {
      (take[indexBytes] as Record<number, TakeKernel>)[itemBytes] = exports[
        `take_${name}_${itemBytes}`
      ] as TakeKernel;
    }
  }
  const gather: Record<number, GatherKernel> = {};
  for (const itemBytes of [1, 2, 4, 8]) {
    gather[itemBytes] = exports[`gather_${itemBytes}`] as GatherKernel;
  }
  return { take, gather, staging };
}
