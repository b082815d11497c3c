// The WebAssembly side of the kernels: one small module (wasm/kernels.wat.mjs), instantiated on
// first use, and its memory used as a reusable staging area.
//
// Why WebAssembly: a JavaScript gather moves 4 bytes per typed-array access, each one
// bounds-checked, and reads int64 indices as two int32 halves. The same loop in wasm does one
// native i64 load, one unsigned compare and one load/store per element (the figures are in
// docs/performance.md). Wasm code can only address its own memory, so
// callers stage the bytes a step needs into it (TypedArray.set, a memmove) and copy the result
// out. The staging area stays small (a few MiB per step) and warm: it is reused by every call
// instead of being a fresh allocation that page-faults on first touch.
//
// Everything here is optional. Where WebAssembly is missing or refused (a Content-Security-Policy
// without 'wasm-unsafe-eval'), wasmKernels() returns null and the kernels use their JavaScript
// loops, which compute the same bytes.
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

/**
 * `tree_<item>`: GatherTree's backward walk over staged time rows [t0, t1), for beams of
 * K <= 16 items (wasm/kernels.wat.mjs says what it reads and writes). `end` is end_token's bits
 * as an unsigned integer of the item's width. Returns 1 at the first followed parent outside
 * [0, K), else 0.
 */
export type TreeKernel = (
  src: number,
  par: number,
  out: number,
  t0: number,
  t1: number,
  batch: number,
  beams: number,
  lens: number,
  trace: number,
  stops: number,
  end: bigint,
) => number;

export interface WasmKernels {
  /** take[indexBytes][itemBytes] for index widths 4 (int32) and 8 (int64), items of 1, 2, 4, 8. */
  readonly take: Readonly<Record<number, Readonly<Record<number, TakeKernel>>>>;
  /** gather[itemBytes] for items of 1, 2, 4, 8 bytes. */
  readonly gather: Readonly<Record<number, GatherKernel>>;
  /** tree[itemBytes] for items of 1, 2, 4, 8 bytes. */
  readonly tree: Readonly<Record<number, TreeKernel>>;
  /** A view of the whole memory, at least `bytes` long (grows it), or null above the cap. */
  staging(bytes: number): Uint8Array | null;
}

/** The staging area never grows past this; a step that needs more uses the JavaScript path. */
export const STAGING_MAX_BYTES = 256 * 1024 * 1024;
const PAGE_BYTES = 65536;

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * Outputs smaller than this keep to the JavaScript loops: they take microseconds either way, and
 * a process that only runs small ops (a CLI call on a small file) skips compiling the module
 * (~0.6 ms).
 */
export const WASM_MIN_OUTPUT_BYTES = 64 * 1024;

let kernels: WasmKernels | null | undefined;
let enabled = true;
let minOutputBytes = WASM_MIN_OUTPUT_BYTES;

/**
 * Turns the WebAssembly kernels off (false) or back on, optionally for outputs of any size. The
 * JavaScript loops compute the same bytes; the switch exists so that tests can check both paths
 * against each other on small tensors.
 */
export function setWasmKernelsEnabled(on: boolean, minBytes = WASM_MIN_OUTPUT_BYTES): void {
  enabled = on;
  minOutputBytes = minBytes;
}

/**
 * The instantiated kernels for an op writing `outputBytes`, or null when WebAssembly is
 * unavailable or turned off, or the output is small.
 */
export function wasmKernels(outputBytes: number): WasmKernels | null {
  if (!enabled || outputBytes < minOutputBytes) return null;
  if (kernels === undefined) kernels = instantiate();
  return kernels;
}

function instantiate(): WasmKernels | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) return null;
  let exports: Record<string, unknown>;
  try {
    // Synchronous compile keeps every kernel call synchronous. The module is ~8 KiB: browsers
    // compile up to 8 MB synchronously on the main thread (Chrome 114 lifted its old 4 KiB cap).
    // It uses fixed-width SIMD (GatherTree's walk), so an engine without it (Safari before 16.4)
    // refuses the module and every op keeps to its JavaScript loop.
    exports = new api.Instance(new api.Module(KERNELS_WASM), {}).exports;
  } catch {
    return null;
  }
  const memory = exports.memory as WasmMemory;
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
  const tree: Record<number, TreeKernel> = {};
  for (const itemBytes of [1, 2, 4, 8]) {
    gather[itemBytes] = exports[`gather_${itemBytes}`] as GatherKernel;
    tree[itemBytes] = exports[`tree_${itemBytes}`] as TreeKernel;
  }
  let view = new Uint8Array(memory.buffer);
  return {
    take,
    gather,
    tree,
    staging(bytes) {
      if (bytes > STAGING_MAX_BYTES) return null;
      if (bytes > memory.buffer.byteLength) {
        memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE_BYTES));
      }
      // grow() detaches the old buffer; a view made before it would read nothing.
      if (view.buffer !== memory.buffer) view = new Uint8Array(memory.buffer);
      return view;
    },
  };
}
