// Gather straight from a tensor file: reads only the byte ranges the output needs and produces the
// output in bounded chunks, so that memory scales with the output, not with the input (10 000
// rows of a 100 GB embedding table cost what they cost from a 100 kB one). Core plans (shape,
// decoded positions, the 4-D view [batch, outer, axisSize, blockBytes]) and copies; this file
// moves bytes between the file and core's kernel.
//
// Three ways to run a plan, the cheapest by estimated bytes moved (one read call ~ READ_COST
// bytes of sequential reading) among those whose memory fits a budget (SCAN_MAX_BYTES, and a
// quarter of the memory free):
// - ranged: one read per run of consecutive source blocks, straight into the output chunk; reads
//   for one chunk run concurrently. For few picks from a large file (say 10 000 rows of a
//   3.5 GiB file), where memory stays at one output chunk.
// - scan: reads whole regions (rows of the 4-D view; for axis 0 the whole tensor) into a buffer
//   and runs core's kernel from it into reused output chunks. For dense picks, where one read per pick would
//   cost far more than one sequential read (docs/performance.md).
// - sweep: dense picks from a source too large to hold whole: reads the windows holding picked
//   blocks once each, in file order, and scatters the blocks into an output held whole.
// Chunks are produced one ahead of the consumer (see `ahead`), so a file writer's write of one
// chunk overlaps the copies of the next.

import { freemem } from 'node:os';
import {
  type Dtype,
  dtypeSize,
  type GatherOptions,
  type GatherPlan,
  gather,
  planGather,
  runGatherPlan,
  type Tensor,
  TensorOpsError,
  ZERO_FILL,
} from '@tensorops/core';
import { swapBytesInPlace } from '../layout.js';
import { quote } from '../text.js';
import { fileError } from './errors.js';
import { loadableDtype, type StoredTensor, swapUnitOf, type TensorFile } from './stored.js';
import type { ChunkOptions, TensorStream } from './tensor-stream.js';

/** How a file gather runs; see the header of this file. */
export type FileGatherMode = 'ranged' | 'scan' | 'sweep';

/** The output stream, and how it is produced ('loaded': the tensor is not rangeable, read whole). */
export interface FileGatherStream extends TensorStream {
  readonly mode: FileGatherMode | 'loaded';
}

export interface FileGatherOptions extends GatherOptions {
  /** Output chunk size in bytes (default 8 MiB): the memory the executor holds. */
  readonly chunkBytes?: number;
  /** Reads in flight at once (default 16). */
  readonly concurrency?: number;
  /** Sweep window in bytes (default 32 MiB). */
  readonly windowBytes?: number;
  /** Force a strategy (tests); default picks by estimated cost. */
  readonly mode?: 'auto' | FileGatherMode;
}

const DEFAULT_CHUNK = 8 << 20;
const DEFAULT_CONCURRENCY = 16;
const DEFAULT_WINDOW = 32 << 20;
/** What one read call costs, in bytes of sequential reading (syscall + seek, page cache or SSD). */
const READ_COST_BYTES = 32 << 10;
/** Largest region (row of the plan's 4-D view) a scan reads whole into memory. */
const SCAN_MAX_BYTES = 1 << 30;

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
): FileGatherStream {
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
      mode: 'loaded',
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
    windowBytes: Math.max(item, Math.floor((options.windowBytes ?? DEFAULT_WINDOW) / item) * item),
    concurrency: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY),
    swapUnit: swapUnitOf(stored, dtype),
    nbytes,
    zeroFill: plan.positions.includes(ZERO_FILL),
  };
  const mode = options.mode === undefined || options.mode === 'auto' ? pickMode(ctx) : options.mode;
  const run = mode === 'scan' ? scanChunks : mode === 'sweep' ? sweepChunks : rangedChunks;
  return {
    ...base,
    mode,
    chunks: (chunkOptions?: ChunkOptions) => ahead(run(ctx, chunkOptions)),
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
  /** Sweep window: a multiple of the item size, so that windows start on whole units to swap. */
  readonly windowBytes: number;
  readonly concurrency: number;
  readonly swapUnit: number;
  readonly nbytes: number;
  /** Some positions are ZERO_FILL: core's kernel needs those output bytes zeroed beforehand. */
  readonly zeroFill: boolean;
}

/** The cheapest strategy that fits in memory, by estimated bytes moved (a read costs READ_COST). */
function pickMode(ctx: RunContext): FileGatherMode {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  const regionBytes = axisSize * blockBytes;
  if (regionBytes === 0) return 'ranged';
  // Counted without runsOf: a million Run objects would cost more than the count (~250 ms).
  let reads = 0;
  for (let b = 0; b < batch; b++) {
    let prev = ZERO_FILL;
    for (let j = b * perBatch; j < (b + 1) * perBatch; j++) {
      const p = positions[j] as number;
      if (p !== ZERO_FILL && (j === b * perBatch || p !== prev + 1 || prev === ZERO_FILL)) reads++;
      prev = p;
    }
  }
  const budget = scanBudget();
  let best: FileGatherMode = 'ranged';
  let bestCost = reads * outer * READ_COST_BYTES + ctx.nbytes;
  // A scan holds one whole region (row of the 4-D view) in memory at least.
  const scanCost = batch * outer * regionBytes + ctx.nbytes;
  if (regionBytes <= budget && scanCost < bestCost) {
    best = 'scan';
    bestCost = scanCost;
  }
  // A sweep holds the whole output; only worth a pass over the positions when it could win.
  if (ctx.nbytes <= budget && blockBytes <= ctx.windowBytes && ctx.nbytes < bestCost) {
    const sweepCost = sweepWindows(ctx).touched * (ctx.windowBytes + blockBytes) + ctx.nbytes;
    if (sweepCost < bestCost) best = 'sweep';
  }
  return best;
}

/**
 * The largest region a scan may hold: a fraction of the memory free now, and never more than
 * SCAN_MAX_BYTES, so that a gather from a file larger than memory stays ranged.
 */
function scanBudget(): number {
  return Math.min(SCAN_MAX_BYTES, Math.floor(freemem() / 4));
}

/**
 * Hands out the output buffer for the next chunk. With reuse, two buffers take turns: {@link ahead}
 * fills the next chunk while the consumer still holds the previous one.
 */
function chunkAllocator(ctx: RunContext, options?: ChunkOptions): (length: number) => Uint8Array {
  const shared: Uint8Array[] = [];
  let turn = 0;
  return (length) => {
    if (options?.reuse !== true) return new Uint8Array(length);
    turn ^= 1;
    shared[turn] ??= new Uint8Array(Math.min(ctx.chunkBytes, ctx.nbytes));
    return (shared[turn] as Uint8Array).subarray(0, length);
  };
}

/**
 * Produces chunk k+1 while the consumer works on chunk k. A file writer hands chunk k to a libuv
 * thread and waits; computing k+1 is deferred to setImmediate so that it starts after that write
 * was issued and runs on the main thread alongside it (the copies hide most of a large write). The producer must not reuse chunk k's buffer for k+1 (chunkAllocator alternates two).
 */
async function* ahead(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  let pending = it.next();
  try {
    for (;;) {
      const step = await pending;
      if (step.done === true) return;
      pending = new Promise((resolve) => setImmediate(() => resolve(it.next())));
      // Observed when awaited above; this only stops a rejection being reported as unhandled when
      // the consumer leaves early and never asks for the chunk.
      pending.catch(() => {});
      yield step.value;
    }
  } finally {
    await it.return?.();
  }
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
  if (ctx.nbytes === 0) return;
  const regionBytes = axisSize * blockBytes;
  const rowOut = perBatch * blockBytes;
  const regions = batch * outer;
  const window = Math.max(1, Math.floor(ctx.chunkBytes / regionBytes));
  const scan = new Uint8Array(Math.min(window, regions) * regionBytes);
  const allocate = chunkAllocator(ctx, options);
  let produced = 0;
  let out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes));
  let fill = 0;
  const next = (): Uint8Array => {
    const chunk = out.subarray(0, fill);
    produced += fill;
    fill = 0;
    return chunk;
  };
  for (let first = 0; first < regions; first += window) {
    const count = Math.min(window, regions - first);
    const view = scan.subarray(0, count * regionBytes);
    await runReads(ctx, piecesOf(view, ctx.offset + first * regionBytes, ctx.chunkBytes));
    // Swapped once here, so that the copies below can go through core's kernel as plain bytes.
    swapBytesInPlace(view, ctx.swapUnit);
    let r = first;
    while (r < first + count) {
      if (fill === out.length) {
        yield next();
        out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
      }
      const b = Math.floor(r / outer);
      const bPositions = positions.subarray(b * perBatch, (b + 1) * perBatch);
      const space = out.length - fill;
      if (rowOut <= space) {
        // Whole output rows at once: as many as fit, from this window and this batch entry.
        const rows = Math.min(Math.floor(space / rowOut), first + count - r, (b + 1) * outer - r);
        const src = view.subarray((r - first) * regionBytes, (r - first + rows) * regionBytes);
        const dst = out.subarray(fill, fill + rows * rowOut);
        if (ctx.zeroFill) dst.fill(0);
        runGatherPlan({ ...ctx.plan, batch: 1, outer: rows, positions: bPositions }, src, dst);
        fill += rows * rowOut;
        r += rows;
        continue;
      }
      // A row larger than what is left of the chunk: its blocks, split at chunk ends.
      const regionBase = (r - first) * regionBytes;
      const src = view.subarray(regionBase, regionBase + regionBytes);
      for (let j = 0; j < perBatch; ) {
        if (fill === out.length) {
          yield next();
          out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
        }
        const room = out.length - fill;
        const blocks = Math.min(perBatch - j, Math.floor(room / blockBytes));
        if (blocks > 0) {
          const dst = out.subarray(fill, fill + blocks * blockBytes);
          if (ctx.zeroFill) dst.fill(0);
          const part = bPositions.subarray(j, j + blocks);
          runGatherPlan(
            { ...ctx.plan, batch: 1, outer: 1, perBatch: blocks, positions: part },
            src,
            dst,
          );
          fill += blocks * blockBytes;
          j += blocks;
          continue;
        }
        // One block larger than the room left: copied in pieces.
        const p = bPositions[j] as number;
        for (let done = 0; done < blockBytes; ) {
          if (fill === out.length) {
            yield next();
            out = allocate(Math.min(ctx.chunkBytes, ctx.nbytes - produced));
          }
          const take = Math.min(blockBytes - done, out.length - fill);
          if (p === ZERO_FILL) out.fill(0, fill, fill + take);
          else out.set(src.subarray(p * blockBytes + done, p * blockBytes + done + take), fill);
          fill += take;
          done += take;
        }
        j++;
      }
      r++;
    }
  }
  if (fill > 0) yield next();
}

/** One large read split in pieces that run concurrently (the page-cache copies overlap). */
function piecesOf(target: Uint8Array, position: number, piece: number): PendingRead[] {
  const reads: PendingRead[] = [];
  for (let at = 0; at < target.length; at += piece) {
    const end = Math.min(target.length, at + piece);
    reads.push({ position: position + at, target: target.subarray(at, end) });
  }
  return reads;
}

/**
 * Calls visit(k, source byte offset within the tensor) for every output block k that reads the
 * source, in output order.
 */
function forEachSourceBlock(ctx: RunContext, visit: (k: number, at: number) => void): void {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  let k = 0;
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < outer; o++) {
      const rowBase = (b * outer + o) * axisSize;
      for (let j = b * perBatch; j < (b + 1) * perBatch; j++, k++) {
        const p = positions[j] as number;
        if (p !== ZERO_FILL) visit(k, (rowBase + p) * blockBytes);
      }
    }
  }
}

/** Blocks per sweep window (by the window their first byte falls in) and how many windows have any. */
function sweepWindows(ctx: RunContext): { counts: Int32Array; touched: number } {
  const { batch, outer, axisSize, blockBytes } = ctx.plan;
  const counts = new Int32Array(
    Math.ceil((batch * outer * axisSize * blockBytes) / ctx.windowBytes),
  );
  const w = ctx.windowBytes;
  forEachSourceBlock(ctx, (_, at) => {
    const win = Math.floor(at / w);
    counts[win] = (counts[win] as number) + 1;
  });
  let touched = 0;
  for (const c of counts) if (c > 0) touched++;
  return { counts, touched };
}

/**
 * Sweep: reads the windows of the source that hold any picked block, in file order, each once
 * into one reused buffer, and copies their blocks to their places in an output held whole. For
 * dense picks from a source too large to hold (a scan needs a whole region): sequential reads
 * instead of one read per block, with memory = output + one window. Blocks are bucketed by window
 * with a counting sort, so each window finds its blocks without a pass over all indices.
 */
async function* sweepChunks(ctx: RunContext): AsyncIterable<Uint8Array> {
  const { batch, outer, axisSize, blockBytes } = ctx.plan;
  if (ctx.nbytes === 0) return;
  const total = batch * outer * axisSize * blockBytes;
  const w = ctx.windowBytes;
  const { counts } = sweepWindows(ctx);
  const starts = new Float64Array(counts.length + 1);
  for (let i = 0; i < counts.length; i++)
    starts[i + 1] = (starts[i] as number) + (counts[i] as number);
  const blocks = starts[counts.length] as number;
  const order = new Float64Array(blocks); // output block index, bucketed by window
  const source = new Float64Array(blocks); // its source byte offset
  const next = starts.slice(0, counts.length);
  forEachSourceBlock(ctx, (k, at) => {
    const win = Math.floor(at / w);
    const slot = next[win] as number;
    next[win] = slot + 1;
    order[slot] = k;
    source[slot] = at;
  });
  // Zeroed, so ZERO_FILL blocks need nothing.
  const out = new Uint8Array(ctx.nbytes);
  // A window reaches one block further, so that a block starting in it is read whole.
  const buf = new Uint8Array(Math.min(total, w + blockBytes));
  for (let win = 0; win < counts.length; win++) {
    if (counts[win] === 0) continue;
    const start = win * w;
    const view = buf.subarray(0, Math.min(total, start + w + blockBytes) - start);
    await runReads(ctx, piecesOf(view, ctx.offset + start, ctx.chunkBytes));
    swapBytesInPlace(view, ctx.swapUnit);
    for (let slot = starts[win] as number; slot < (starts[win + 1] as number); slot++) {
      const s = (source[slot] as number) - start;
      const d = (order[slot] as number) * blockBytes;
      // A subarray per block would dominate for small blocks; copy those byte by byte.
      if (blockBytes <= 64) for (let i = 0; i < blockBytes; i++) out[d + i] = view[s + i] as number;
      else out.set(view.subarray(s, s + blockBytes), d);
    }
  }
  for (let at = 0; at < out.length; at += ctx.chunkBytes) {
    yield out.subarray(at, Math.min(out.length, at + ctx.chunkBytes));
  }
}
