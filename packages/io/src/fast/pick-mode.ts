// Which strategy runs a file gather: the cheapest by estimated cost among those whose memory fits
// a budget, the reference ranged gather among them. Costs are in bytes of sequential reading from
// the page cache: one read call counts as READ_COST_BYTES, and a byte of fresh memory (first
// touch: a page fault and zeroing) as FRESH_BYTE_COST bytes, so that a dense gather from a large
// file rereads it by passes rather than holding it in fresh memory.

import { ZERO_FILL } from '@tensorops/core/internal';
import { canReadMany, holdsBytes } from '../file/capabilities.js';
import type { RunContext } from '../file/gather-file/context.js';
import {
  chunksPerPass,
  PASS_CHUNK_SCALE,
  passReads,
  passReadsBound,
  passSizes,
} from './passes/sizes.js';
import { sweepWindows } from './sweep.js';

/** The strategies that may serve a file gather faster than the ranged one. */
export type FastMode = 'scan' | 'sweep' | 'passes';

/**
 * What one read call of a ranged gather costs, all in (syscall, thread-pool round trip, promise),
 * in bytes of sequential reading from the page cache (docs/performance.md, "Out of core").
 */
const READ_COST_BYTES = 128 << 10;
/** What a byte of fresh memory costs, in bytes read from the page cache into faulted-in memory. */
const FRESH_BYTE_COST = 16;
/** Largest region (row of the plan's 4-D view) a scan reads whole into memory. */
const SCAN_MAX_BYTES = 1 << 30;

/**
 * Whether a .npy arriving on a pipe is better copied to a temp file and gathered from there (the
 * passes strategy: reused buffers) than gathered as it passes (an output held whole in fresh
 * memory): the copy writes the data once and the passes read it once per pass (passes/sizes.ts).
 */
export function spillPays(dataBytes: number, outBytes: number, chunkBytes: number): boolean {
  const chunk = PASS_CHUNK_SCALE * chunkBytes;
  const chunks = Math.ceil(outBytes / chunk);
  const passes = Math.ceil(chunks / chunksPerPass(chunks, chunk));
  return dataBytes * (1 + passes) < FRESH_BYTE_COST * outBytes;
}

/**
 * The cheapest strategy that fits in memory, by estimated cost (see the header); undefined where
 * that is the ranged gather.
 */
export function pickMode(ctx: RunContext): FastMode | undefined {
  const { batch, outer, axisSize, blockBytes } = ctx.plan;
  const regionBytes = axisSize * blockBytes;
  // Over the network every byte costs: only the ranges the output needs are fetched.
  if (regionBytes === 0 || canReadMany(ctx.file)) return undefined;
  const budget = scanBudget();
  const chunk = Math.min(ctx.chunkBytes, ctx.nbytes);
  // Every strategy copies the output once; what differs is what is read and what is held fresh.
  let best: FastMode | undefined;
  let bestCost = countReads(ctx) * outer * READ_COST_BYTES + FRESH_BYTE_COST * 2 * chunk;
  // A scan holds one whole region (row of the 4-D view) in memory at least, unless the file is
  // already in memory, when it gathers in place.
  const inMemory =
    ctx.swapUnit === 1 &&
    holdsBytes(ctx.file) &&
    ctx.file.bytesInMemory(ctx.offset, batch * outer * regionBytes) !== undefined;
  const scanHeld = inMemory ? 0 : Math.max(regionBytes, chunk);
  const scanCost = batch * outer * regionBytes + FRESH_BYTE_COST * (scanHeld + 2 * chunk);
  if (regionBytes <= budget && scanCost < bestCost) {
    best = 'scan';
    bestCost = scanCost;
  }
  if (inMemory) return best;
  // The next two only pay for their pass over the positions when they could win.
  const passes = passSizes(ctx);
  const passChunk = Math.min(passes.chunkBlocks * blockBytes, ctx.nbytes);
  // A ring of chunks (those of a pass and one more) and two windows.
  const passHeld = (passes.chunksPerPass + 1) * passChunk + 2 * passes.windowBytes;
  // More than one pass rereads the source: only from one that the page cache can hold.
  const onePass = passes.chunksPerPass * passChunk >= ctx.nbytes;
  // A sweep holds the whole output: what it costs at least, where it may run.
  const sweepHeld = ctx.nbytes + ctx.windowBytes;
  const sweepFits = ctx.nbytes <= budget && blockBytes <= ctx.windowBytes;
  const sweepLeast = sweepFits ? FRESH_BYTE_COST * sweepHeld : Number.POSITIVE_INFINITY;
  if (
    blockBytes <= passes.windowBytes &&
    (onePass || batch * outer * regionBytes <= freeMemory() / 2) &&
    FRESH_BYTE_COST * passHeld < bestCost
  ) {
    // Counting the reads walks every position; a bound on them that wins against every other
    // strategy settles the choice as the count would, without that walk.
    const heldCost = FRESH_BYTE_COST * passHeld;
    const boundCost = passReadsBound(ctx) * passes.windowBytes + heldCost;
    const passesCost =
      boundCost < bestCost && boundCost <= sweepLeast
        ? boundCost
        : passReads(ctx) * passes.windowBytes + heldCost;
    if (passesCost < bestCost) {
      best = 'passes';
      bestCost = passesCost;
    }
  }
  if (sweepFits && sweepLeast < bestCost) {
    const sweepCost = sweepWindows(ctx).touched * ctx.windowBytes + FRESH_BYTE_COST * sweepHeld;
    if (sweepCost < bestCost) best = 'sweep';
  }
  return best;
}

/** Read calls of a ranged gather: one per run of consecutive positions in each batch entry. */
function countReads(ctx: RunContext): number {
  const { batch, perBatch, positions } = ctx.plan;
  // Counted without runsOf: one Run object per run of indices would cost more than the count.
  let reads = 0;
  for (let b = 0; b < batch; b++) {
    let prev = ZERO_FILL;
    for (let j = b * perBatch; j < (b + 1) * perBatch; j++) {
      const p = positions[j] as number;
      if (p !== ZERO_FILL && (j === b * perBatch || p !== prev + 1 || prev === ZERO_FILL)) reads++;
      prev = p;
    }
  }
  return reads;
}

/**
 * The largest region a scan may hold: a fraction of the memory free now, and never more than
 * SCAN_MAX_BYTES, so that a gather from a file larger than memory stays ranged. Where the runtime
 * cannot tell its free memory (a browser) nothing is held: gathers stay ranged.
 */
function scanBudget(): number {
  return Math.min(SCAN_MAX_BYTES, Math.floor(freeMemory() / 4));
}

/**
 * Bytes of memory available now (the page cache it may reclaim included), 0 where the runtime
 * cannot tell (a browser).
 */
function freeMemory(): number {
  const os = globalThis.process?.getBuiltinModule?.('node:os') as
    | typeof import('node:os')
    | undefined;
  return os?.freemem() ?? 0;
}
