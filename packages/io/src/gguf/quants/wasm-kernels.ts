// The WebAssembly kernels of Q8_0 and Q4_K (wasm/quants.wat), loaded on first use through core's
// shared loader. Optional like every kernel of tensorops: where WebAssembly is missing, refused or
// turned off, or the output is small, the JavaScript kernels (legacy.ts, k-quants.ts) run, to the
// same bits. They exist because a command dequantizes a few thousand rows and exits: the
// JavaScript loops spend most of such a run in V8's lower tiers, before they are optimized.

import { type WasmInstance, wasmModule } from '@tensorops/core/internal';
import { QUANTS_WASM } from '../../wasm/quants-binary.js';
import { halfTable } from './half.js';
import type { Kernel } from './kernel.js';

/** The module's memory starts with the float32 value of every float16 bit pattern. */
const TABLE_BYTES = 65536 * 4;
/** Output bytes per call into the module, so that its staging area stays small. */
const PIECE_BYTES = 1 << 20;

interface Layout {
  readonly name: string;
  readonly blockSize: number;
  readonly typeSize: number;
}

const LAYOUTS: Readonly<Record<string, Layout>> = {
  Q8_0: { name: 'q8_0', blockSize: 32, typeSize: 34 },
  Q4_K: { name: 'q4_k', blockSize: 256, typeSize: 144 },
};

type ModuleKernel = (src: number, out: number, blocks: number) => void;

/**
 * The WebAssembly kernels by GGUF type name, for an output of `outputBytes`; null when
 * WebAssembly is unavailable or turned off (core's setWasmKernelsEnabled), or the output is small.
 */
export const wasmQuantKernels: (outputBytes: number) => Readonly<Record<string, Kernel>> | null =
  wasmModule(QUANTS_WASM, bind);

function bind({ exports, staging }: WasmInstance): Readonly<Record<string, Kernel>> {
  const memory = stagingOf(staging, TABLE_BYTES);
  new Uint32Array(memory.buffer, 0, 65536).set(new Uint32Array(halfTable().buffer));
  const kernels: Record<string, Kernel> = {};
  for (const [type, layout] of Object.entries(LAYOUTS))
    kernels[type] = staged(exports[layout.name] as ModuleKernel, layout, staging);
  return kernels;
}

/** A Kernel that stages its blocks above the table, a piece at a time, and copies the floats out. */
function staged(run: ModuleKernel, layout: Layout, staging: WasmInstance['staging']): Kernel {
  const { blockSize, typeSize } = layout;
  const perPiece = Math.max(1, Math.floor(PIECE_BYTES / (blockSize * 4)));
  return (src, out, blocks) => {
    const outBytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    for (let first = 0; first < blocks; first += perPiece) {
      const count = Math.min(perPiece, blocks - first);
      const inLength = count * typeSize;
      const outLength = count * blockSize * 4;
      const outAt = TABLE_BYTES + Math.ceil(inLength / 4) * 4;
      const memory = stagingOf(staging, outAt + outLength);
      memory.set(src.subarray(first * typeSize, first * typeSize + inLength), TABLE_BYTES);
      run(TABLE_BYTES, outAt, count);
      outBytes.set(memory.subarray(outAt, outAt + outLength), first * blockSize * 4);
    }
  };
}

/** The staging view; a piece and the table are far below the staging area's cap. */
function stagingOf(staging: WasmInstance['staging'], bytes: number): Uint8Array {
  const view = staging(bytes);
  if (view === null) throw new Error(`quants: no staging area of ${bytes} bytes`);
  return view;
}
