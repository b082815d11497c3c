// Quantized ggml blocks to float32, bit for bit as gguf-py's gguf.quants.dequantize computes them.
// One kernel per type, in quants/ by family; a type gguf-py does not dequantize is refused by name.

import { TensorOpsError } from '@tensorops/core';
import type { GgmlType } from './ggml-types.js';
import { dequantizeMXFP4, dequantizeNVFP4 } from './quants/fp4.js';
import {
  dequantizeIQ2_S,
  dequantizeIQ2_XS,
  dequantizeIQ2_XXS,
  dequantizeIQ3_S,
  dequantizeIQ3_XXS,
} from './quants/iq-signed.js';
import { dequantizeIQ1_M, dequantizeIQ1_S } from './quants/iq1.js';
import { dequantizeIQ4_NL, dequantizeIQ4_XS } from './quants/iq4.js';
import {
  dequantizeQ2_K,
  dequantizeQ3_K,
  dequantizeQ4_K,
  dequantizeQ5_K,
  dequantizeQ6_K,
} from './quants/k-quants.js';
import type { Kernel } from './quants/kernel.js';
import {
  dequantizeQ4_0,
  dequantizeQ4_1,
  dequantizeQ5_0,
  dequantizeQ5_1,
  dequantizeQ8_0,
} from './quants/legacy.js';
import { dequantizeTQ1_0, dequantizeTQ2_0 } from './quants/ternary.js';
import { wasmQuantKernels } from './quants/wasm-kernels.js';

const KERNELS: Readonly<Record<string, Kernel>> = {
  Q4_0: dequantizeQ4_0,
  Q4_1: dequantizeQ4_1,
  Q5_0: dequantizeQ5_0,
  Q5_1: dequantizeQ5_1,
  Q8_0: dequantizeQ8_0,
  Q2_K: dequantizeQ2_K,
  Q3_K: dequantizeQ3_K,
  Q4_K: dequantizeQ4_K,
  Q5_K: dequantizeQ5_K,
  Q6_K: dequantizeQ6_K,
  TQ1_0: dequantizeTQ1_0,
  TQ2_0: dequantizeTQ2_0,
  MXFP4: dequantizeMXFP4,
  NVFP4: dequantizeNVFP4,
  IQ2_XXS: dequantizeIQ2_XXS,
  IQ2_XS: dequantizeIQ2_XS,
  IQ2_S: dequantizeIQ2_S,
  IQ3_XXS: dequantizeIQ3_XXS,
  IQ3_S: dequantizeIQ3_S,
  IQ1_S: dequantizeIQ1_S,
  IQ1_M: dequantizeIQ1_M,
  IQ4_NL: dequantizeIQ4_NL,
  IQ4_XS: dequantizeIQ4_XS,
};

/**
 * Dequantizes `count` elements (a whole number of blocks) from `blocks`, which holds exactly
 * count / type.blockSize blocks of type.typeSize bytes. Throws E_DTYPE naming a type it cannot
 * dequantize, E_FORMAT when the lengths disagree.
 */
export function dequantize(type: GgmlType, blocks: Uint8Array, count: number): Float32Array {
  const kernel = checkedKernel(type, blocks, count, count * 4);
  const out = new Float32Array(count);
  kernel(blocks, out, count / type.blockSize);
  return out;
}

/**
 * As dequantize, writing into `out` (exactly `count` floats, e.g. a subarray of a larger output)
 * instead of a new array, so a caller that owns the output's memory spends no allocation on it.
 * `outputBytes` is the size of the whole output `out` belongs to (WebAssembly serves only large
 * ones).
 */
export function dequantizeInto(
  type: GgmlType,
  blocks: Uint8Array,
  count: number,
  out: Float32Array,
  outputBytes = out.byteLength,
): void {
  const kernel = checkedKernel(type, blocks, count, outputBytes);
  if (out.length !== count)
    throw new TensorOpsError(
      'E_VALUE',
      `${type.name}: ${count} elements do not fit an output of ${out.length}`,
    );
  kernel(blocks, out, count / type.blockSize);
}

function checkedKernel(
  type: GgmlType,
  blocks: Uint8Array,
  count: number,
  outputBytes: number,
): Kernel {
  const kernel = Object.hasOwn(KERNELS, type.name) ? KERNELS[type.name] : undefined;
  if (kernel === undefined)
    throw new TensorOpsError('E_DTYPE', `GGUF type ${type.name} cannot be dequantized`);
  const { blockSize, typeSize } = type;
  if (!Number.isSafeInteger(count) || count < 0 || count % blockSize !== 0)
    throw new TensorOpsError(
      'E_FORMAT',
      `${type.name}: ${count} elements is not a whole number of blocks of ${blockSize}`,
    );
  const blockCount = count / blockSize;
  if (blocks.length !== blockCount * typeSize)
    throw new TensorOpsError(
      'E_FORMAT',
      `${type.name}: ${count} elements take ${blockCount * typeSize} bytes (${blockCount} blocks of ${typeSize}), got ${blocks.length}`,
    );
  const fast = wasmQuantKernels(outputBytes);
  return (fast !== null && Object.hasOwn(fast, type.name) ? fast[type.name] : undefined) ?? kernel;
}
