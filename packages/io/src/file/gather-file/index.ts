// Gather straight from a tensor file: reads only the byte ranges the output needs and produces the
// output in bounded chunks, so that memory scales with the output, not with the input (10 000
// rows of a 100 GB embedding table cost what they cost from a 100 kB one). Core plans (shape,
// decoded positions, the 4-D view [batch, outer, axisSize, blockBytes]) and copies; the modules
// of this folder move bytes between the file and core's kernel. The reference strategy is
// ranged.ts, which works for every file; the one call to ../../fast/ asks whether a faster
// strategy may serve the gather instead.

import { dtypeSize, type GatherOptions, gather, planGather, type Tensor } from '@tensorops/core';
import { ZERO_FILL } from '@tensorops/core/internal';
import { type FastMode, fasterGather } from '../../fast/index.js';
import {
  loadableDtype,
  rangeReadable,
  type StoredTensor,
  swapUnitOf,
  type TensorFile,
} from '../stored.js';
import type { ChunkOptions, TensorStream } from '../tensor-stream.js';
import { DEFAULT_CHUNK_BYTES, type RunContext } from './context.js';
import { ahead } from './output-chunks.js';
import { quantizedGather } from './quantized-rows.js';
import { rangedGather } from './ranged.js';

/** How a file gather runs: the reference ranged gather, or one of the faster strategies. */
export type FileGatherMode = 'ranged' | FastMode;

/**
 * The output stream, and how it is produced ('loaded': the tensor is not rangeable, read whole;
 * 'rows': quantized rows read and dequantized).
 */
export interface FileGatherStream extends TensorStream {
  readonly mode: FileGatherMode | 'loaded' | 'rows';
}

export interface FileGatherOptions extends GatherOptions {
  /**
   * Output chunk size in bytes (default 8 MiB): the memory the executor holds. The passes
   * strategy hands out chunks four times as large (and holds up to three of them, reused) and
   * reads windows half as large.
   */
  readonly chunkBytes?: number;
  /** Reads in flight at once (default 16). */
  readonly concurrency?: number;
  /** Sweep window in bytes (default 32 MiB). */
  readonly windowBytes?: number;
  /** Force a strategy (tests); default picks by estimated cost. */
  readonly mode?: 'auto' | FileGatherMode;
}

const DEFAULT_CONCURRENCY = 16;
const DEFAULT_WINDOW = 32 << 20;

/**
 * Gathers `indices` along an axis of a stored tensor without loading it (numpy take / ONNX
 * Gather semantics, as core's `gather`). Validates everything up front (axis, batch dims, every
 * index) and returns the output as a stream; the file stays open until the stream is consumed
 * and is not closed by it. Tensors that cannot be addressed by byte ranges (compressed .npz
 * members, Fortran order) are loaded whole and gathered in memory.
 */
export function gatherFromFile(
  file: TensorFile,
  stored: StoredTensor,
  indices: Tensor,
  options: FileGatherOptions = {},
): FileGatherStream {
  const dtype = loadableDtype(stored);
  const plan = planGather({ dtype, shape: stored.shape }, indices, options);
  const item = dtypeSize(dtype);
  let elements = 1;
  for (const d of plan.outShape) elements *= d;
  const nbytes = elements * item;
  const base = { dtype, shape: plan.outShape, nbytes };
  if (!rangeReadable(stored) && stored.quantized === undefined) {
    return {
      ...base,
      mode: 'loaded',
      async *chunks() {
        yield gather(await file.read(stored), indices, options).data;
      },
    };
  }
  const chunkBytes = Math.max(
    item,
    Math.floor((options.chunkBytes ?? DEFAULT_CHUNK_BYTES) / item) * item,
  );
  const ctx: RunContext = {
    file,
    stored,
    plan,
    dtype,
    offset: stored.offset as number,
    chunkBytes,
    windowBytes: Math.max(item, Math.floor((options.windowBytes ?? DEFAULT_WINDOW) / item) * item),
    concurrency: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY),
    swapUnit: swapUnitOf(stored, dtype),
    nbytes,
    zeroFill: plan.positions.includes(ZERO_FILL),
  };
  const { quantized } = stored;
  if (quantized !== undefined) {
    return {
      ...base,
      mode: 'rows',
      chunks: (chunkOptions?: ChunkOptions) => ahead(quantizedGather(ctx, quantized, chunkOptions)),
    };
  }
  const faster = options.mode === 'ranged' ? undefined : fasterGather(ctx, options.mode ?? 'auto');
  const run = faster?.run ?? rangedGather;
  return {
    ...base,
    mode: faster?.mode ?? 'ranged',
    chunks: (chunkOptions?: ChunkOptions) => ahead(run(ctx, chunkOptions)),
  };
}
