// Which strategy runs a file gather: the cheapest by estimated bytes moved (one read call counted
// as READ_COST_BYTES of sequential reading) among those whose memory fits a budget.

import { ZERO_FILL } from '@tensorops/core/internal';
import type { RunContext } from './context.js';
import { sweepWindows } from './sweep.js';

/** How a file gather runs: see ranged.ts, scan.ts and sweep.ts. */
export type FileGatherMode = 'ranged' | 'scan' | 'sweep';

/** What one read call costs, in bytes of sequential reading (syscall + seek, page cache or SSD). */
const READ_COST_BYTES = 32 << 10;
/** Largest region (row of the plan's 4-D view) a scan reads whole into memory. */
const SCAN_MAX_BYTES = 1 << 30;

/** The cheapest strategy that fits in memory, by estimated bytes moved (a read costs READ_COST). */
export function pickMode(ctx: RunContext): FileGatherMode {
  const { batch, outer, axisSize, perBatch, blockBytes, positions } = ctx.plan;
  const regionBytes = axisSize * blockBytes;
  // Over the network every byte costs: only the ranges the output needs are fetched.
  if (regionBytes === 0 || ctx.file.readMany !== undefined) return 'ranged';
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
 * SCAN_MAX_BYTES, so that a gather from a file larger than memory stays ranged. Where the runtime
 * cannot tell its free memory (a browser) nothing is held: gathers stay ranged.
 */
function scanBudget(): number {
  const os = globalThis.process?.getBuiltinModule?.('node:os') as
    | typeof import('node:os')
    | undefined;
  return Math.min(SCAN_MAX_BYTES, Math.floor((os?.freemem() ?? 0) / 4));
}
