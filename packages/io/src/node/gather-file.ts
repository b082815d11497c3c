// Gather straight from a tensor file: reads only the byte ranges the output needs and produces the
// output in bounded chunks, so memory scales with the chunk size, not with the input (a 100 GB
// embedding table costs the same as a 100 kB one). Core plans (shape, decoded positions, the 4-D
// view [batch, outer, axisSize, blockBytes]); this file only moves bytes.
//
// Two ways to run a plan, chosen by estimated cost:
// - ranged: for each output block, the source block's byte range; consecutive source blocks are
//   coalesced into one read, and reads for one output chunk run concurrently.
// - scan: when picking from every small row (e.g. gather along the last axis), reading the rows
//   sequentially in chunk-sized windows is far cheaper than one tiny read per element.

import {
  type Dtype,
  dtypeSize,
  type GatherOptions,
  type GatherPlan,
  gather,
  planGather,
  type Tensor,
  TensorOpsError,
  ZERO_FILL,
} from '@tensorops/core';
import { swapBytesInPlace } from '../layout.js';
import { quote } from '../text.js';
import { fileError } from './errors.js';
import { loadableDtype, type StoredTensor, swapUnitOf, type TensorFile } from './stored.js';
import type { ChunkOptions, TensorStream } from './tensor-stream.js';

export interface FileGatherOptions extends GatherOptions {
  /** Output chunk size in bytes (default 8 MiB): the memory the executor holds. */
  readonly chunkBytes?: number;
  /** Reads in flight at once (default 16). */
  readonly concurrency?: number;
  /** Force a strategy (tests); default picks by estimated cost. */
  readonly mode?: 'auto' | 'ranged' | 'scan';
}

const DEFAULT_CHUNK = 8 << 20;
const DEFAULT_CONCURRENCY = 16;
/** What one read call costs, in bytes of sequential reading (syscall + seek, page cache or SSD). */
const READ_COST_BYTES = 32 << 10;

interface Run {
  /** Source block index within the region, or ZERO_FILL. */
  readonly first: number;
  readonly blocks: number;
}

/** Positions of one batch entry as runs of consecutive source blocks (and zero-fill runs). */
function runsOf(positions: GatherPlan['positions'], start: number, count: number): Run[] {
  const runs: Run[] = [];
  let j = 0;
  while (j < count) {
    const p = positions[start + j] as number;
    let k = 1;
    if (p === ZERO_FILL) {
      while (j + k < count && positions[start + j + k] === ZERO_FILL) k++;
    } else {
      while (j + k < count && positions[start + j + k] === p + k) k++;
    }
    runs.push({ first: p, blocks: k });
    j += k;
  }
  return runs;
}

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
): TensorStream {
  const dtype = loadableDtype(stored);
  const plan = planGather({ dtype, shape: stored.shape }, indices, options);
  const item = dtypeSize(dtype);
  let elements = 1;
  for (const d of plan.outShape) elements *= d;
  const nbytes = elements * item;
  const rangeable = stored.offset !== null && !(stored.fortranOrder && stored.shape.length >= 2);
  const base = { dtype, shape: plan.outShape, nbytes };
  if (!rangeable) {
    return {
      ...base,
      async *chunks() {
        yield gather(await file.read(stored), indices, options).data;
      },
    };
  }
  const chunkBytes = Math.max(
    item,
    Math.floor((options.chunkBytes ?? DEFAULT_CHUNK) / item) * item,
  );
  const ctx: RunContext = {
    file,
    stored,
    plan,
    dtype,
    offset: stored.offset as number,
    chunkBytes,
    concurrency: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY),
    swapUnit: swapUnitOf(stored, dtype),
    nbytes,
  };
  const mode = options.mode === 'ranged' || options.mode === 'scan' ? options.mode : pickMode(ctx);
  return {
    ...base,
    chunks: (chunkOptions?: ChunkOptions) =>
      mode === 'scan' ? scanChunks(ctx, chunkOptions) : rangedChunks(ctx, chunkOptions),
  };
}

interface RunContext {
  readonly file: TensorFile;
  readonly stored: StoredTensor;
  readonly plan: GatherPlan;
  readonly dtype: Dtype;
  /** Absolute file offset of the tensor's first byte. */
  readonly offset: number;
  readonly chunkBytes: number;
  readonly concurrency: number;
  readonly swapUnit: number;
  readonly nbytes: number;
}

function pickMode(ctx: RunContext): 'ranged' | 'scan' {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  const regionBytes = axisSize * blockBytes;
  if (regionBytes === 0 || regionBytes > ctx.chunkBytes) return 'ranged';
  let reads = 0;
  for (let b = 0; b < batch; b++) {
    for (const run of runsOf(positions, b * perBatch, perBatch))
      if (run.first !== ZERO_FILL) reads++;
  }
  const rangedCost = reads * outer * READ_COST_BYTES + ctx.nbytes;
  const scanCost = batch * outer * regionBytes;
  return scanCost < rangedCost ? 'scan' : 'ranged';
}

/** Hands out the output buffer for the next chunk: the same one again when reuse is allowed. */
function chunkAllocator(ctx: RunContext, options?: ChunkOptions): (length: number) => Uint8Array {
  let shared: Uint8Array | undefined;
  return (length) => {
    if (options?.reuse !== true) return new Uint8Array(length);
    shared ??= new Uint8Array(Math.min(ctx.chunkBytes, ctx.nbytes));
    return shared.subarray(0, length);
  };
}

interface PendingRead {
  readonly position: number;
  readonly target: Uint8Array;
}

async function runReads(ctx: RunContext, reads: PendingRead[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < reads.length) {
      const { position, target } = reads[next++] as PendingRead;
      let got: number;
      try {
        got = await ctx.file.readAt(target, position);
      } catch (cause) {
        throw fileError(ctx.file.path, 'read', cause);
      }
      if (got !== target.length) {
        throw new TensorOpsError(
          'E_FORMAT',
          `${ctx.file.path}: data truncated: tensor ${quote(ctx.stored.name ?? '')} needs bytes up to offset ${position + target.length}, the file ends at ${position + got}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.concurrency, reads.length) }, worker));
}

async function* rangedChunks(ctx: RunContext, options?: ChunkOptions): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  const allocate = chunkAllocator(ctx, options);
  let produced = 0;
  let out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
  let fill = 0;
  let reads: PendingRead[] = [];
  const flush = async (): Promise<Uint8Array> => {
    await runReads(ctx, reads);
    reads = [];
    const chunk = out.subarray(0, fill);
    swapBytesInPlace(chunk, ctx.swapUnit);
    produced += fill;
    return chunk;
  };
  for (let b = 0; b < batch; b++) {
    const runs = runsOf(positions, b * perBatch, perBatch);
    for (let o = 0; o < outer; o++) {
      const regionStart = ctx.offset + (b * outer + o) * axisSize * blockBytes;
      for (const run of runs) {
        let done = 0;
        const length = run.blocks * blockBytes;
        while (done < length) {
          const take = Math.min(length - done, out.length - fill);
          if (run.first === ZERO_FILL) out.fill(0, fill, fill + take);
          else {
            reads.push({
              position: regionStart + run.first * blockBytes + done,
              target: out.subarray(fill, fill + take),
            });
          }
          fill += take;
          done += take;
          if (fill === out.length) {
            yield await flush();
            fill = 0;
            if (produced < ctx.nbytes)
              out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
          }
        }
      }
    }
  }
  if (fill > 0) yield await flush();
}

async function* scanChunks(ctx: RunContext, options?: ChunkOptions): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  const regionBytes = axisSize * blockBytes;
  const regions = batch * outer;
  const window = Math.max(1, Math.floor(ctx.chunkBytes / regionBytes));
  const scan = new Uint8Array(Math.min(window, regions) * regionBytes);
  const allocate = chunkAllocator(ctx, options);
  let produced = 0;
  let out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes));
  let fill = 0;
  for (let first = 0; first < regions; first += window) {
    const count = Math.min(window, regions - first);
    const view = scan.subarray(0, count * regionBytes);
    await runReads(ctx, [{ position: ctx.offset + first * regionBytes, target: view }]);
    for (let r = first; r < first + count; r++) {
      const b = Math.floor(r / outer);
      const regionBase = (r - first) * regionBytes;
      for (let j = 0; j < perBatch; j++) {
        const p = positions[b * perBatch + j] as number;
        for (let done = 0; done < blockBytes; ) {
          const take = Math.min(blockBytes - done, out.length - fill);
          if (p === ZERO_FILL) out.fill(0, fill, fill + take);
          else {
            const s = regionBase + p * blockBytes + done;
            // A subarray per element would dominate for small blocks; copy those byte by byte.
            if (take <= 64) for (let k = 0; k < take; k++) out[fill + k] = view[s + k] as number;
            else out.set(view.subarray(s, s + take), fill);
          }
          fill += take;
          done += take;
          if (fill === out.length) {
            swapBytesInPlace(out, ctx.swapUnit);
            produced += fill;
            yield out;
            fill = 0;
            if (produced < ctx.nbytes)
              out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
          }
        }
      }
    }
  }
  if (fill > 0) {
    const chunk = out.subarray(0, fill);
    swapBytesInPlace(chunk, ctx.swapUnit);
    yield chunk;
  }
}
