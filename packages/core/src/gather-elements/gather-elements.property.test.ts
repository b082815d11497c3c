import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectMatchesReference } from '../../test/assert.js';
import { tensorAt } from '../../test/fixtures.js';
import {
  DATA_DTYPES,
  dim,
  INDEX_DTYPES,
  indexDraws,
  indexValue,
  randomData,
  refGatherElements,
} from '../../test/reference-elements-nd.js';
import { tensorFrom } from '../tensor.js';
import { gatherElements } from './index.js';

// A random case: data of rank 1-4 (dims 0-4), an axis, indices whose off-axis dims are <= data's
// and whose axis dim is 0-5, index values mostly in range with some just or far outside.
const elementsCase = fc
  .record({
    dataShape: fc.array(dim(4), { minLength: 1, maxLength: 4 }),
    axisDraw: fc.nat(),
    dtype: fc.constantFrom(...DATA_DTYPES),
    indexDtype: fc.constantFrom(...INDEX_DTYPES),
    oob: fc.constantFrom('error' as const, 'zero' as const),
    seed: fc.integer(),
    dataOffset: fc.integer({ min: 0, max: 7 }),
    indexOffset: fc.integer({ min: 0, max: 7 }),
  })
  .chain((base) => {
    const r = base.dataShape.length;
    const axis = (base.axisDraw % (2 * r)) - r; // [-r, r-1]
    const a = axis < 0 ? axis + r : axis;
    const dims = base.dataShape.map((d, i) =>
      i === a ? dim(5) : d === 0 ? fc.constant(0) : dim(d),
    );
    return fc.tuple(...dims).chain((indexShape) =>
      indexDraws(indexShape.reduce((x, y) => x * y, 1)).map((draws) => ({
        ...base,
        axis,
        indexShape,
        values: draws.map((d) => indexValue(d, base.dataShape[a] as number, base.indexDtype)),
      })),
    );
  });

describe('gatherElements agrees with the slow literal reference', () => {
  it('bytes, shape, oob zero and out-of-range messages (value, position, range)', () => {
    fc.assert(
      fc.property(elementsCase, (c) => {
        const data = randomData(c.dtype, c.dataShape, c.seed);
        const indices = tensorFrom(c.indexDtype, c.indexShape, c.values);
        const ref = refGatherElements(data, indices, c.axis, c.oob);
        const run = () =>
          gatherElements(tensorAt(data, c.dataOffset), tensorAt(indices, c.indexOffset), {
            axis: c.axis,
            oob: c.oob,
          });
        expectMatchesReference(run, ref, data.dtype);
      }),
      { numRuns: 400 },
    );
  });

  it('the axis dim of indices being larger than data is fine; an off-axis one never is', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        (shape, axisDraw, dimDraw) => {
          const a = axisDraw % shape.length;
          const other = (a + 1 + (dimDraw % (shape.length - 1))) % shape.length;
          const data = randomData('int32', shape, 7);
          const longer = shape.map((d, i) => (i === a ? d + 3 : d));
          const zeros = (s: number[]) =>
            tensorFrom('int64', s, new Array<number>(s.reduce((x, y) => x * y, 1)).fill(0));
          expect(gatherElements(data, zeros(longer), { axis: a }).shape).toEqual(longer);
          const wider = shape.map((d, i) => (i === other ? d + 1 : d));
          expect(() => gatherElements(data, zeros(wider), { axis: a })).toThrow(
            `GatherElements: indices dim ${other} is ${(shape[other] as number) + 1}, larger than data dim ${other}`,
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});
