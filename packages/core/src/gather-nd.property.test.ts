import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectMatchesReference } from '../test/assert.js';
import { tensorAt } from '../test/fixtures.js';
import {
  DATA_DTYPES,
  dim,
  INDEX_DTYPES,
  indexDraws,
  indexValue,
  randomData,
  refGatherND,
} from '../test/reference-elements-nd.js';
import { gatherND } from './gather-nd.js';
import { tensorFrom } from './tensor.js';

// A random valid-shaped case: data rank r in 1-4 (dims 0-4), batch_dims b in [0, r-1],
// k in [1, r-b], 0-2 leading index dims of size 0-3; index values mostly in range.
const ndCase = fc
  .record({
    dataShape: fc.array(dim(4), { minLength: 1, maxLength: 4 }),
    bDraw: fc.nat(),
    kDraw: fc.nat(),
    lead: fc.array(dim(3), { maxLength: 2 }),
    dtype: fc.constantFrom(...DATA_DTYPES),
    indexDtype: fc.constantFrom(...INDEX_DTYPES),
    oob: fc.constantFrom('error' as const, 'zero' as const),
    flattenBatch: fc.boolean(),
    seed: fc.integer(),
    dataOffset: fc.integer({ min: 0, max: 7 }),
    indexOffset: fc.integer({ min: 0, max: 7 }),
  })
  .chain((base) => {
    const r = base.dataShape.length;
    const b = base.bDraw % r;
    const k = 1 + (base.kDraw % (r - b));
    const indexShape = [...base.dataShape.slice(0, b), ...base.lead, k];
    const n = indexShape.reduce((x, y) => x * y, 1);
    return indexDraws(n).map((draws) => ({
      ...base,
      b,
      indexShape,
      values: draws.map((d, i) =>
        indexValue(d, base.dataShape[b + (i % k)] as number, base.indexDtype),
      ),
    }));
  });

describe('gatherND agrees with the slow literal reference', () => {
  it('bytes, shape (both output layouts), oob zero and out-of-range messages', () => {
    fc.assert(
      fc.property(ndCase, (c) => {
        const data = randomData(c.dtype, c.dataShape, c.seed);
        const indices = tensorFrom(c.indexDtype, c.indexShape, c.values);
        const ref = refGatherND(data, indices, c.b, c.oob, c.flattenBatch);
        const run = () =>
          gatherND(tensorAt(data, c.dataOffset), tensorAt(indices, c.indexOffset), {
            batchDims: c.b,
            oob: c.oob,
            flattenBatch: c.flattenBatch,
          });
        expectMatchesReference(run, ref, data.dtype);
      }),
      { numRuns: 400 },
    );
  });

  it('k = r - b with b = 0 is numpy fancy indexing of single elements: data[i0, i1, ...]', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
        (shape, draws) => {
          const r = shape.length;
          const data = randomData('int16', shape, 99);
          const tuples = draws.map((x) => shape.map((d, i) => Math.floor(x / (i + 1)) % d));
          const out = gatherND(data, tensorFrom('int32', [tuples.length, r], tuples.flat()));
          expect(out.shape).toEqual([tuples.length]);
          const view = new DataView(data.data.buffer);
          const outView = new DataView(out.data.buffer);
          tuples.forEach((t, j) => {
            const flat = t.reduce((acc, v, i) => acc * (shape[i] as number) + v, 0);
            expect(outView.getUint16(2 * j, true)).toBe(view.getUint16(2 * flat, true));
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});
