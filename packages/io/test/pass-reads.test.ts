import { createTensor, planGather, tensorFrom } from '@tensorops/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passReads, passReadsBound } from '../src/fast/passes/sizes.js';
import type { RunContext } from '../src/file/gather-file/context.js';

/** The fields of a run that the passes' read counts use; the others are never read by them. */
function runOf(shape: number[], axis: number, ids: number[], chunkBytes: number): RunContext {
  const data = createTensor('float32', shape);
  const indices = tensorFrom('int32', [ids.length], ids);
  const plan = planGather(data, indices, { axis, oob: 'zero' });
  const nbytes = plan.outShape.reduce((a, b) => a * b, 1) * 4;
  return { plan, chunkBytes, swapUnit: 1, nbytes } as unknown as RunContext;
}

describe("the passes' read count and its bound", () => {
  it('the bound is never below the count (any shape, axis, picks, out-of-range ids and chunk size)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.array(fc.integer({ min: -8, max: 8 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 4, max: 200 }),
        (shape, axisSeed, ids, chunkBytes) => {
          const axis = axisSeed % shape.length;
          const ctx = runOf(shape, axis, ids, chunkBytes);
          expect(passReadsBound(ctx)).toBeGreaterThanOrEqual(passReads(ctx));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is the count when every pass reads every window (each pass picks every row once)', () => {
    // 1024 rows of 64 bytes; passes of 1024 blocks; 751 is odd, so each pass is a permutation.
    const ids = Array.from({ length: 4096 }, (_, i) => (i * 751) % 1024);
    const ctx = runOf([1024, 16], 0, ids, 8192);
    expect(passReads(ctx)).toBe(4 * 16); // four passes, sixteen 4 KiB windows each
    expect(passReadsBound(ctx)).toBe(passReads(ctx));
  });
});
