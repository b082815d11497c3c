import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hex } from '../test/assert.js';
import { tensorAt } from '../test/fixtures.js';
import {
  indexDraws,
  indexValue,
  randomData,
  refGatherElements,
} from '../test/reference-elements-nd.js';
import type { Dtype } from './dtype.js';
import { isTensorOpsError } from './errors.js';
import {
  gatherElements,
  gatherElementsFused,
  planGatherElements,
  runGatherElementsPlan,
} from './gather-elements.js';
import { createTensor, tensorFrom } from './tensor.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

/** The planned path (decodeIndices + copy), which gatherElements skips when the fused one applies. */
function planned(
  data: ReturnType<typeof randomData>,
  indices: ReturnType<typeof tensorFrom>,
  axis: number,
) {
  const plan = planGatherElements(data, indices, { axis });
  const out = createTensor(data.dtype, plan.outShape);
  runGatherElementsPlan(plan, data.data, out.data);
  return out;
}

// Shapes large enough for the 8-wide (axis last) and 4-wide (tiled) groups and their tails; off-axis
// dims before the axis may be smaller than data's (inner dims must match for the fused path).
const fusedCase = fc
  .record({
    dataShape: fc.array(fc.integer({ min: 1, max: 19 }), { minLength: 1, maxLength: 3 }),
    axisDraw: fc.nat(),
    dtype: fc.constantFrom<Dtype>('float32', 'int32', 'int16', 'uint8', 'float16'),
    indexDtype: fc.constantFrom('int32' as const, 'int64' as const),
    seed: fc.integer(),
    shrink: fc.nat(),
    axisLength: fc.integer({ min: 0, max: 21 }),
  })
  .chain((base) => {
    const r = base.dataShape.length;
    const axis = base.axisDraw % r;
    const indexShape = base.dataShape.map((d, i) =>
      i === axis ? base.axisLength : i < axis ? 1 + ((base.shrink + i) % d) : d,
    );
    const n = indexShape.reduce((x, y) => x * y, 1);
    return indexDraws(n).map((draws) => ({
      ...base,
      axis,
      indexShape,
      values: draws.map((d) => indexValue(d, base.dataShape[axis] as number, base.indexDtype)),
    }));
  });

describe('gatherElements: the fused decode+copy path equals the planned path and the reference', () => {
  it('bytes, and the same first out-of-range error in C order', () => {
    fc.assert(
      fc.property(fusedCase, (c) => {
        const data = randomData(c.dtype, c.dataShape, c.seed);
        const indices = tensorFrom(c.indexDtype, c.indexShape, c.values);
        const ref = refGatherElements(data, indices, c.axis, 'error');
        if (ref.ok) {
          const fused = gatherElementsFused(data, indices, { axis: c.axis });
          // empty outputs are left to the planned path
          expect(fused === null).toBe(ref.tensor.data.byteLength === 0);
          const out = gatherElements(data, indices, { axis: c.axis });
          expect(out.shape).toEqual(ref.tensor.shape);
          expect(hex(out.data)).toBe(hex(ref.tensor.data));
          expect(hex(planned(data, indices, c.axis).data)).toBe(hex(ref.tensor.data));
          return;
        }
        const e1 = caught(() => gatherElementsFused(data, indices, { axis: c.axis }));
        const e2 = caught(() => planned(data, indices, c.axis));
        expect(isTensorOpsError(e1) && e1.code).toBe('E_INDEX_RANGE');
        expect((e1 as Error).message).toBe(ref.message);
        expect((e2 as Error).message).toBe(ref.message);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects int64 values whose high word is not the sign extension of the low word', () => {
    const data = randomData('float32', [2, 12], 3);
    for (const bad of [
      2n ** 32n + 1n,
      -(2n ** 32n) + 1n,
      2n ** 31n,
      -(2n ** 31n) - 1n,
      2n ** 63n - 1n,
    ]) {
      for (const at of [0, 7, 8, 11, 23]) {
        const values = new Array<bigint>(24).fill(1n);
        values[at] = bad;
        values[23] = values[23] === 1n ? -12n : (values[23] as bigint);
        const indices = tensorFrom('int64', [2, 12], values);
        for (const axis of [1, 0]) {
          const dataA = axis === 1 ? data : randomData('float32', [12, 2], 5);
          const idxA = axis === 1 ? indices : tensorFrom('int64', [12, 2], values);
          const msg = (caught(() => gatherElements(dataA, idxA, { axis })) as Error).message;
          const row = axis === 1 ? Math.floor(at / 12) : Math.floor(at / 2);
          const col = axis === 1 ? at % 12 : at % 2;
          expect(msg).toBe(
            `GatherElements: index ${bad} out of range [-12, 11] at indices[${row},${col}] (axis=${axis})`,
          );
        }
      }
    }
  });

  it('maps negative indices, and falls back to the planned path for oob zero and other dtypes', () => {
    const data = tensorFrom('int32', [9], [10, 11, 12, 13, 14, 15, 16, 17, 18]);
    const idx = tensorFrom('int64', [9], [-1, -9, 0, 8, -2, 3, 4, 5, -5]);
    expect([...new Int32Array(gatherElements(data, idx).data.buffer)]).toEqual([
      18, 10, 10, 18, 17, 13, 14, 15, 14,
    ]);
    expect(gatherElementsFused(data, idx, { oob: 'zero' })).toBeNull();
    expect(
      gatherElementsFused(data, tensorFrom('int16', [9], [0, 0, 0, 0, 0, 0, 0, 0, 0]), {}),
    ).toBeNull();
    expect(gatherElementsFused(tensorAt(data, 1), idx, {})).toBeNull(); // unaligned data: word width 1
  });
});
