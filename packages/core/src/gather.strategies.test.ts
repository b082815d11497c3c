import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeAt } from '../test/fixtures.js';
import type { Dtype } from './dtype.js';
import {
  type GatherPlan,
  type GatherStrategy,
  gatherStrategy,
  planGather,
  runGatherPlan,
} from './gather.js';
import { createTensor, type Tensor, tensorBytes, tensorFrom } from './tensor.js';

// runGatherPlan's three walks (plain, touch-rows, touch-groups) and its copy paths (1-word
// unrolled by 8, n-word unrolled by 4, n-word, TypedArray.set) must give the same bytes whatever
// the geometry picks. The benchmark-sized inputs that pick them by themselves are too large for
// unit tests, so each strategy is forced here on small ones, against `expectedBytes`: the
// [batch, outer, axisSize, block] geometry written out byte by byte.

const STRATEGIES: readonly GatherStrategy[] = ['plain', 'touch-rows', 'touch-groups'];

/** Item sizes 1-16 and blocks up to ~1.2 KiB: word widths 1/2/4, words 1..n, below and above 512 B. */
const DTYPES: readonly Dtype[] = ['uint8', 'int16', 'float32', 'float64', 'complex128', 'S3', 'U3'];

interface Case {
  readonly data: Tensor;
  readonly indices: Tensor;
  readonly axis: number;
  readonly batchDims: number;
}

const caseArbitrary = fc
  .record({
    dtype: fc.constantFrom(...DTYPES),
    batch: fc.integer({ min: 1, max: 2 }),
    outer: fc.integer({ min: 1, max: 3 }),
    axisSize: fc.integer({ min: 1, max: 9 }),
    block: fc.constantFrom(1, 2, 3, 4, 8, 16, 40),
    perBatch: fc.integer({ min: 0, max: 40 }),
    dataOffset: fc.nat({ max: 7 }),
    seed: fc.nat(),
  })
  .chain((p) => {
    const data = createTensor(p.dtype, [p.batch, p.outer, p.axisSize, p.block]);
    // Data bytes from the seed (fast-check's per-byte arrays are too slow at these sizes).
    let x = p.seed | 1;
    for (let i = 0; i < data.data.length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) | 0;
      data.data[i] = x >>> 24;
    }
    // -s..s: in range, negative, and one past the end (zero-filled under oob 'zero')
    return fc
      .array(fc.integer({ min: -p.axisSize, max: p.axisSize }), {
        minLength: p.batch * p.perBatch,
        maxLength: p.batch * p.perBatch,
      })
      .map(
        (values): Case => ({
          data: { ...data, data: placeAt(data.data, p.dataOffset) },
          indices: tensorFrom('int32', [p.batch, p.perBatch], values),
          axis: 2,
          batchDims: 1,
        }),
      );
  });

/** Runs the plan into a fresh zeroed output placed at `offset` (1 forces byte-wide copies). */
function runWith(plan: GatherPlan, data: Tensor, strategy: GatherStrategy, offset: number) {
  const dst = placeAt(
    new Uint8Array(tensorBytes({ dtype: data.dtype, shape: plan.outShape })),
    offset,
  );
  runGatherPlan(plan, data.data, dst, strategy);
  return dst;
}

/** Index of the first differing byte, or -1 (vitest's deep equality is slow on long arrays). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** out[b, o, j, :] = data[b, o, p, :] for p = indices[b, j] (negative from the end), else zeros. */
function expectedBytes(c: Case): Uint8Array {
  const [batch, outer, axisSize, block] = c.data.shape as [number, number, number, number];
  const item = c.data.data.length / (batch * outer * axisSize * block || 1);
  const blockBytes = block * item;
  const perBatch = c.indices.shape[c.indices.shape.length - 1] as number;
  const values = new Int32Array(c.indices.data.slice().buffer);
  const out = new Uint8Array(batch * outer * perBatch * blockBytes);
  let d = 0;
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < outer; o++) {
      for (let j = 0; j < perBatch; j++) {
        const v = values[b * perBatch + j] as number;
        const p = v < 0 ? v + axisSize : v;
        if (p >= 0 && p < axisSize) {
          const s = ((b * outer + o) * axisSize + p) * blockBytes;
          for (let k = 0; k < blockBytes; k++) out[d + k] = c.data.data[s + k] as number;
        }
        d += blockBytes;
      }
    }
  }
  return out;
}

describe('runGatherPlan strategies', () => {
  it('every strategy copies the same bytes as the reference, oob zero included', () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const expected = expectedBytes(c);
        const plan = planGather(c.data, c.indices, { ...c, oob: 'zero' });
        for (const strategy of STRATEGIES) {
          for (const offset of [0, 1]) {
            const got = runWith(plan, c.data, strategy, offset);
            expect(firstDifference(got, expected), `${strategy} at offset ${offset}`).toBe(-1);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('long unaligned runs: 8-way unrolled groups, remainders and group boundaries', () => {
    // 4-byte blocks from an aligned buffer take the unrolled 1-word loop; 1000 indices cross
    // many groups of 64 and end with a remainder of 8 and of 64.
    const axisSize = 1000;
    const data = createTensor('int32', [3, axisSize]);
    for (let i = 0; i < data.data.length; i++) data.data[i] = (i * 37 + 11) & 0xff;
    const values = Array.from({ length: 1000 }, (_, j) => (j * 7919) % axisSize);
    values[13] = -1; // a negative index inside an unrolled group of 8
    const indices = tensorFrom('int32', [1, 1000], values);
    const c = { data: { ...data, shape: [1, 3, axisSize, 1] }, indices, axis: 2, batchDims: 1 };
    const expected = expectedBytes(c);
    const plan = planGather(c.data, indices, c);
    for (const strategy of STRATEGIES) {
      expect(firstDifference(runWith(plan, c.data, strategy, 0), expected), strategy).toBe(-1);
    }
  });
});

describe('gatherStrategy', () => {
  // planGather reads no data bytes: shapes alone, however large
  const plan = (shape: number[], n: number, axis: number): GatherPlan =>
    planGather({ dtype: 'float32', shape }, createTensor('int32', [n]), { axis });

  it('reads small, densely gathered rows whole first (dense gathers along the last axis)', () => {
    expect(gatherStrategy(plan([64, 1_000_000], 1_000_000, 1))).toBe('touch-rows');
    expect(gatherStrategy(plan([128, 4096], 2048, 1))).toBe('touch-rows');
  });

  it('touches groups of short blocks from a large row (many rows along axis 0)', () => {
    expect(gatherStrategy(plan([1_000_000, 64], 1_000_000, 0))).toBe('touch-groups');
  });

  it('leaves long blocks, sparse small rows and empty plans alone', () => {
    expect(gatherStrategy(plan([100_000, 1024], 1000, 0))).toBe('plain');
    expect(gatherStrategy(plan([1000, 4], 3, 0))).toBe('plain');
    expect(gatherStrategy(plan([10, 0], 5, 0))).toBe('plain');
    expect(gatherStrategy(plan([10, 4], 0, 0))).toBe('plain');
  });
});
