// GatherTree's WebAssembly module (wasm/tree.wat: fixed-width SIMD), loaded on first use through
// core's shared loader. It is a module of its own: an engine without SIMD refuses only it, and
// GatherTree then walks in JavaScript while core's scalar kernels keep running.
import { type WasmInstance, wasmModule } from '@tensorops/core/internal';
import { TREE_WASM } from './tree-binary.js';

/**
 * `tree_<item>`: GatherTree's backward walk over staged time rows [t0, t1), for beams of
 * K <= 16 items (wasm/tree.wat.mjs says what it reads and writes). `end` is end_token's bits
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

export interface TreeKernels {
  /** tree[itemBytes] for items of 1, 2, 4, 8 bytes. */
  readonly tree: Readonly<Record<number, TreeKernel>>;
  /** A view of the whole memory, at least `bytes` long (grows it), or null above the cap. */
  staging(bytes: number): Uint8Array | null;
}

/**
 * The instantiated walk for an output of `outputBytes`, or null when WebAssembly (or its SIMD) is
 * unavailable or turned off (core's setWasmKernelsEnabled), or the output is small.
 */
export const treeKernels: (outputBytes: number) => TreeKernels | null = wasmModule(
  TREE_WASM,
  bindTree,
);

function bindTree({ exports, staging }: WasmInstance): TreeKernels {
  const tree: Record<number, TreeKernel> = {};
  for (const itemBytes of [1, 2, 4, 8])
    tree[itemBytes] = exports[`tree_${itemBytes}`] as TreeKernel;
  return { tree, staging };
}
