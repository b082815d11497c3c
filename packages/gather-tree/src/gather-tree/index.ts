// GatherTree: checks its inputs (checks.ts), converts them (inputs.ts), walks back in WebAssembly
// (wasm-walk.ts) or JavaScript (backtrack*.ts), then runs the forward pass (forward.ts). As for
// every op that is a folder, this index.ts holds the op and re-exports its public names, with one
// module per idea beside it. No I/O; the output is allocated once (or is the caller's `out`), and
// a parent is checked where the walk follows it.
import { dtypeSize, type OutputOption, type Tensor } from '@tensorops/core';
import { alignedView, outputTensor, wordView } from '@tensorops/core/internal';
import { type EndToken, type ResolvedEndToken, resolveEndToken } from '../end-token.js';
import { backtrack, backtrackPairs } from './backtrack.js';
import { backtrackStops } from './backtrack-stops.js';
import { checkGatherTree } from './checks.js';
import { type Context, OP } from './context.js';
import { fillEnded, maskFloat, maskPairs } from './forward.js';
import { clampLengths, parentView } from './inputs.js';
import { backtrackWasm } from './wasm-walk.js';

/** `out`: as the core ops' (the output has `stepIds`' dtype and shape). */
export type GatherTreeOptions = Pick<OutputOption, 'out'>;

/**
 * Rebuilds complete beams from per-step ids and parent beam pointers (OpenVINO GatherTree-1,
 * TensorFlow Addons `gather_tree`), with the fixes of docs/design.md §3.4:
 * - `stepIds`, `parentIds`: [MAX_TIME, BATCH, BEAM]; `maxSeqLen`: [BATCH]; `endToken` a scalar.
 * - max_seq_len is clamped to [0, MAX_TIME]; 0 or negative leaves the whole beam end_token.
 * - Only the parents actually followed are read and validated, against [0, BEAM);
 *   parent_ids[0] is never read.
 * - From the first end_token on, every step of a beam is end_token.
 * - The output has the dtype of `stepIds`; step values are copied bit for bit.
 *
 * step ids: int8..uint64, float32, float64 (float values must be integral where they survive
 * into the output). parent ids and max_seq_len: any integer dtype or integral float32/float64,
 * independent of the step dtype. end_token must be exactly representable in the step dtype.
 *
 * @example
 * gatherTree(
 *   tensorFrom('int32', [3, 1, 2], [1, 2, 3, 4, 5, 6]),
 *   tensorFrom('int32', [3, 1, 2], [0, 0, 1, 0, 1, 0]),
 *   tensorFrom('int32', [1], [3]),
 *   0,
 * ) // int32 [3, 1, 2]: [1, 2, 4, 3, 5, 6] (beam 0: 1 4 5, beam 1: 2 3 6)
 */
export function gatherTree(
  stepIds: Tensor,
  parentIds: Tensor,
  maxSeqLen: Tensor,
  endToken: EndToken,
  options: GatherTreeOptions = {},
): Tensor {
  const { T, B, K, dtype } = checkGatherTree(stepIds, parentIds, maxSeqLen);
  const end = resolveEndToken(endToken, dtype, OP);
  const lengths = clampLengths(maxSeqLen, T);

  // Every element of the output is written below (the trace, or end_token), so a reused `out`
  // needs no clearing.
  const out = outputTensor(OP, options, dtype, stepIds.shape, [stepIds, parentIds, maxSeqLen]);
  if (out.data.byteLength === 0) return out;
  const size = dtypeSize(dtype);
  // The walks write through views of the item's width: an `out` not aligned for them is written
  // through an aligned copy.
  const target = aligned(out.data, size) ? out.data : new Uint8Array(out.data.byteLength);
  walk(
    { T, B, K, lengths, parents: parentView(parentIds, K), parentIds, stepIds },
    size,
    end,
    target,
  );
  if (target !== out.data) out.data.set(target);
  return out;
}

/** The backward walk and the forward pass of one call into `target` (output-sized, aligned). */
function walk(ctx: Context, size: number, end: ResolvedEndToken, target: Uint8Array): void {
  const { T, B, K, lengths, parents, stepIds } = ctx;
  const dtype = stepIds.dtype;
  // The backward walk in WebAssembly where it runs (beams of at most 16); null leaves it to the
  // JavaScript walks below, which also find and report a followed parent out of range.
  const stops = backtrackWasm(ctx, size, stepIds.data, target, end.bits);

  if (size === 8) {
    const src = alignedView(stepIds.data, Int32Array);
    const dst = wordView(target, 4) as Int32Array;
    if (stops === null) backtrackPairs(ctx, src, dst);
    const endWords = alignedView(end.bits, Int32Array);
    if (dtype === 'float64') {
      const values = new Float64Array(target.buffer, target.byteOffset, dst.length >>> 1);
      maskFloat(ctx, values, dst, Number(end.value), endWords, 2);
    } else {
      maskPairs(ctx, dst, endWords[0] as number, endWords[1] as number);
    }
    return;
  }
  const width = size as 4 | 2 | 1;
  const src = wordView(aligned(stepIds.data, size) ? stepIds.data : stepIds.data.slice(), width);
  const dst = wordView(target, width);
  const endWord = wordView(end.bits.slice(), width)[0] as number;
  if (dtype === 'float32') {
    if (stops === null) backtrack(ctx, src, dst);
    const values = new Float32Array(target.buffer, target.byteOffset, dst.length);
    maskFloat(ctx, values, dst as Int32Array, Number(end.value), new Int32Array([endWord]), 1);
  } else {
    // Plain arguments rather than ctx's fields: see backtrackStops.
    const ended = stops ?? backtrackStops(T, B, K, lengths, parents, src, dst, endWord, ctx);
    fillEnded(T, B, K, lengths, dst, endWord, ended);
  }
}

function aligned(bytes: Uint8Array, size: number): boolean {
  return bytes.byteOffset % size === 0;
}
