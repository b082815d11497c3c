import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeAt } from '../test/fixtures.js';
import { type ReferenceResult, referenceGather } from '../test/reference.js';
import { type Dtype, dtypeSize, type IntegerDtype, NUMERIC_DTYPES } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { gather } from './gather.js';
import { shapeSize } from './shape.js';
import { type Tensor, tensorFrom } from './tensor.js';

// The kernel against test/reference.ts (one element at a time, straight from the spec formula)
// on random dtypes, shapes (0-size included), axes, batch_dims, index dtypes and values, with
// data and indices at random byte offsets.

const DATA_DTYPES: readonly Dtype[] = [...NUMERIC_DTYPES, 'U1', 'U3', 'S1', 'S3', 'S5'];
const INDEX_DTYPES: readonly IntegerDtype[] = [
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
];
const RANGES: Record<IntegerDtype, readonly [bigint, bigint]> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

interface Case {
  readonly data: Tensor;
  readonly indices: Tensor;
  readonly axis: number;
  readonly batchDims: number;
}

/** Values that are valid for an axis of size s, representable in `dtype`. */
function inRange(s: number, dtype: IntegerDtype): fc.Arbitrary<bigint> {
  const [lo] = RANGES[dtype];
  return fc.bigInt({ min: lo < 0n ? BigInt(-s) : 0n, max: BigInt(s - 1) });
}

/** Mostly valid values, plus the ones just outside and the ones that would alias if truncated. */
function anyIndex(s: number, dtype: IntegerDtype): fc.Arbitrary<bigint> {
  const [lo, hi] = RANGES[dtype];
  const S = BigInt(s);
  const edges = [S, S + 1n, -S - 1n, 2n ** 31n, 2n ** 32n, 2n ** 32n + 1n, -(2n ** 32n), lo, hi];
  const tricky = fc.constantFrom(...edges.filter((v) => v >= lo && v <= hi));
  return s > 0 ? fc.oneof(inRange(s, dtype), tricky) : tricky;
}

function caseArbitrary(
  values: (s: number, dtype: IntegerDtype) => fc.Arbitrary<bigint>,
  validOnly = false,
) {
  return fc
    .record({
      dtype: fc.constantFrom(...DATA_DTYPES),
      shape: fc.array(fc.nat({ max: 4 }), { minLength: 1, maxLength: 4 }),
      indexDtype: fc.constantFrom(...INDEX_DTYPES),
      extra: fc.array(fc.nat({ max: 3 }), { maxLength: 3 }),
      axisSeed: fc.nat(),
      batchSeed: fc.nat(),
      negativeAxis: fc.boolean(),
      negativeBatch: fc.boolean(),
      dataOffset: fc.nat({ max: 7 }),
      indexOffset: fc.nat({ max: 7 }),
    })
    .chain((p) => {
      const r = p.shape.length;
      const axis = p.axisSeed % r;
      const b = p.batchSeed % (axis + 1);
      const s = p.shape[axis] as number;
      const indexShape = [...p.shape.slice(0, b), ...p.extra];
      // An empty axis has no valid index: the only valid indices tensor then is an empty one.
      if (validOnly && s === 0 && shapeSize(indexShape) > 0) indexShape.push(0);
      const q = indexShape.length;
      // Negative batch_dims counts from the indices' rank and must stay within [-min(r,q), 0).
      const batchDims = p.negativeBatch && b < q && q - b <= r ? b - q : b;
      const dataBytes = shapeSize(p.shape) * dtypeSize(p.dtype);
      return fc
        .record({
          bytes: fc.uint8Array({ minLength: dataBytes, maxLength: dataBytes }),
          values: fc.array(values(s, p.indexDtype), {
            minLength: shapeSize(indexShape),
            maxLength: shapeSize(indexShape),
          }),
        })
        .map(({ bytes, values: v }): Case => {
          const indices = tensorFrom(p.indexDtype, indexShape, v);
          return {
            data: { dtype: p.dtype, shape: p.shape, data: placeAt(bytes, p.dataOffset) },
            indices: { ...indices, data: placeAt(indices.data, p.indexOffset) },
            axis: p.negativeAxis ? axis - r : axis,
            batchDims,
          };
        });
    });
}

function run(c: Case, oob: 'error' | 'zero'): ReferenceResult {
  try {
    const tensor = gather(c.data, c.indices, { axis: c.axis, batchDims: c.batchDims, oob });
    return { ok: true, tensor };
  } catch (e) {
    if (!(e instanceof TensorOpsError)) throw e;
    return { ok: false, code: e.code, message: e.message };
  }
}

function expectSame(actual: ReferenceResult, expected: ReferenceResult): void {
  if (!expected.ok) {
    expect(actual).toEqual(expected);
    return;
  }
  if (!actual.ok) throw new Error(`kernel failed where the reference did not: ${actual.message}`);
  expect(actual.tensor.dtype).toBe(expected.tensor.dtype);
  expect(actual.tensor.shape).toEqual(expected.tensor.shape);
  expect(actual.tensor.data).toEqual(expected.tensor.data);
}

const RUNS = { numRuns: 400 };

describe('gather properties (against test/reference.ts)', () => {
  it('in-range indices: identical bytes, shape and dtype', () => {
    fc.assert(
      fc.property(caseArbitrary(inRangeOrNothing, true), (c) => {
        const expected = referenceGather(c.data, c.indices, c);
        expect(expected.ok).toBe(true);
        expectSame(run(c, 'error'), expected);
      }),
      RUNS,
    );
  });

  it("oob: 'zero' fills zeros exactly where the reference does", () => {
    fc.assert(
      fc.property(caseArbitrary(anyIndex), (c) => {
        expectSame(run(c, 'zero'), referenceGather(c.data, c.indices, { ...c, oob: 'zero' }));
      }),
      RUNS,
    );
  });

  it('out-of-range indices: E_INDEX_RANGE naming the first bad value, its position and the range', () => {
    let errors = 0;
    fc.assert(
      fc.property(caseArbitrary(anyIndex), (c) => {
        const expected = referenceGather(c.data, c.indices, c);
        if (!expected.ok) {
          errors++;
          expect(expected.code).toBe('E_INDEX_RANGE');
        }
        expectSame(run(c, 'error'), expected);
      }),
      RUNS,
    );
    // The property must actually exercise the error path, not just the happy one.
    expect(errors).toBeGreaterThan(50);
  });
});

/** In-range values (an empty axis gets an empty indices tensor, so the 0n is never used). */
function inRangeOrNothing(s: number, dtype: IntegerDtype): fc.Arbitrary<bigint> {
  return s > 0 ? inRange(s, dtype) : fc.constant(0n);
}
