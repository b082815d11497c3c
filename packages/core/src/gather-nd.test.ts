import { describe, expect, it } from 'vitest';
import { hex, thrown } from '../test/assert.js';
import { readFixture, tensorAt, tensorFromJson } from '../test/fixtures.js';
import { randomData, refGatherND } from '../test/reference-elements-nd.js';
import type { Dtype } from './dtype.js';
import { gatherND, planGatherND, runGatherNDPlan } from './gather-nd.js';
import { ZERO_FILL } from './indices.js';
import { createTensor, tensorFrom, tensorValues } from './tensor.js';

const iota = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => i + from);

describe('gatherND: ONNX GatherND-13 examples 1-5', () => {
  const d2 = tensorFrom('int32', [2, 2], [0, 1, 2, 3]);
  const d3 = tensorFrom('int32', [2, 2, 2], iota(8));

  it('example 1: elements', () => {
    const out = gatherND(d2, tensorFrom('int64', [2, 2], [0, 0, 1, 1]));
    expect(out.shape).toEqual([2]);
    expect(tensorValues(out)).toEqual([0, 3]);
  });

  it('example 2: rows', () => {
    const out = gatherND(d2, tensorFrom('int64', [2, 1], [1, 0]));
    expect(out.shape).toEqual([2, 2]);
    expect(tensorValues(out)).toEqual([2, 3, 0, 1]);
  });

  it('example 3: slices of a 3-D tensor', () => {
    const out = gatherND(d3, tensorFrom('int64', [2, 2], [0, 1, 1, 0]));
    expect(out.shape).toEqual([2, 2]);
    expect(tensorValues(out)).toEqual([2, 3, 4, 5]);
  });

  it('example 4: leading index dims', () => {
    const out = gatherND(d3, tensorFrom('int64', [2, 1, 2], [0, 1, 1, 0]));
    expect(out.shape).toEqual([2, 1, 2]);
    expect(tensorValues(out)).toEqual([2, 3, 4, 5]);
  });

  it('example 5: batch_dims = 1', () => {
    const out = gatherND(d3, tensorFrom('int64', [2, 1], [1, 0]), { batchDims: 1 });
    expect(out.shape).toEqual([2, 2]);
    expect(tensorValues(out)).toEqual([2, 3, 4, 5]);
  });
});

describe('gatherND: OpenVINO GatherND-8 examples (and GatherND-5 via flattenBatch)', () => {
  const d2 = tensorFrom('float32', [2, 2], [1, 2, 3, 4]);
  const d3 = tensorFrom('float32', [2, 3, 4], iota(24, 1));
  const d4 = tensorFrom('float32', [1, 2, 2, 4], iota(16, 1));
  const idx6 = tensorFrom('int32', [2, 3, 1, 1], [1, 0, 2, 0, 2, 2]);
  const idx7 = tensorFrom('int32', [1, 2, 2, 1], [1, 0, 3, 2]);

  it('examples 1-3 (batch_dims 0)', () => {
    expect(tensorValues(gatherND(d2, tensorFrom('int32', [2, 2], [0, 0, 1, 0])))).toEqual([1, 3]);
    const rows = gatherND(d2, tensorFrom('int32', [2, 1], [1, 0]));
    expect([rows.shape, tensorValues(rows)]).toEqual([
      [2, 2],
      [3, 4, 1, 2],
    ]);
    const lead = gatherND(d2, tensorFrom('int32', [2, 1, 1], [1, 0]));
    expect([lead.shape, tensorValues(lead)]).toEqual([
      [2, 1, 2],
      [3, 4, 1, 2],
    ]);
  });

  it('example 4: batch_dims 1, elements', () => {
    const out = gatherND(d2, tensorFrom('int32', [2, 1], [1, 0]), { batchDims: 1 });
    expect([out.shape, tensorValues(out)]).toEqual([[2], [2, 3]]);
  });

  it('example 5: batch_dims 1, slices', () => {
    const out = gatherND(d3, tensorFrom('int32', [2, 1], [1, 0]), { batchDims: 1 });
    expect([out.shape, tensorValues(out)]).toEqual([
      [2, 4],
      [5, 6, 7, 8, 13, 14, 15, 16],
    ]);
  });

  it('example 6: batch_dims 2 -> [2,3,1]; GatherND-5 fuses the batch -> [6,1]', () => {
    const v8 = gatherND(d3, idx6, { batchDims: 2 });
    expect([v8.shape, tensorValues(v8)]).toEqual([
      [2, 3, 1],
      [2, 5, 11, 13, 19, 23],
    ]);
    const v5 = gatherND(d3, idx6, { batchDims: 2, flattenBatch: true });
    expect([v5.shape, tensorValues(v5)]).toEqual([
      [6, 1],
      [2, 5, 11, 13, 19, 23],
    ]);
  });

  it('example 7: batch_dims 3 -> [1,2,2]; GatherND-5 -> [4]', () => {
    const v8 = gatherND(d4, idx7, { batchDims: 3 });
    expect([v8.shape, tensorValues(v8)]).toEqual([
      [1, 2, 2],
      [2, 5, 12, 15],
    ]);
    const v5 = gatherND(d4, idx7, { batchDims: 3, flattenBatch: true });
    expect([v5.shape, tensorValues(v5)]).toEqual([[4], [2, 5, 12, 15]]);
  });

  it('the IR shape examples, planned from data dtype and shape alone', () => {
    const plan = (shape: number[], idx: number[], batchDims: number, flattenBatch = false) =>
      planGatherND({ dtype: 'float32', shape }, createTensor('int64', idx), {
        batchDims,
        flattenBatch,
      }).outShape;
    expect(plan([1000, 256, 10, 15], [25, 125, 3], 0)).toEqual([25, 125, 15]);
    expect(plan([1000, 256, 10, 15], [25, 125, 3], 0, true)).toEqual([25, 125, 15]);
    expect(plan([30, 2, 100, 35], [30, 2, 3, 1], 2)).toEqual([30, 2, 3, 35]);
    expect(plan([30, 2, 100, 35], [30, 2, 3, 1], 2, true)).toEqual([60, 3, 35]);
    expect(plan([1, 64, 64, 320], [1, 64, 64, 1, 1], 3)).toEqual([1, 64, 64, 1]);
  });
});

describe('gatherND: semantics', () => {
  it('negative coordinates count from the end of their own data dim', () => {
    const data = tensorFrom('int16', [2, 3, 4], iota(24));
    const out = gatherND(data, tensorFrom('int8', [3, 3], [-1, -1, -1, -2, 0, -4, 1, -3, 2]));
    expect(tensorValues(out)).toEqual([23, 0, 14]);
  });

  it('indices of rank 1 gather a single slice (output drops the tuple dim)', () => {
    const data = tensorFrom('int32', [2, 3], iota(6));
    const out = gatherND(data, tensorFrom('uint8', [1], [1]));
    expect([out.shape, tensorValues(out)]).toEqual([[3], [3, 4, 5]]);
    const one = gatherND(data, tensorFrom('uint64', [2], [1n, 2n]));
    expect([one.shape, tensorValues(one)]).toEqual([[], [5]]);
  });

  it('moves bits untouched: float64 signalling NaN at an odd byte offset, int64 beyond 2^53', () => {
    const f64 = new BigUint64Array([0x7ff0000000000001n, 0x8000000000000000n, 0x7ff8deadbeef0001n]);
    const data = tensorAt(createTensor('float64', [3], new Uint8Array(f64.buffer)), 5);
    const out = gatherND(data, tensorFrom('int64', [3, 1], [2, 0, -2]));
    expect([...new BigUint64Array(out.data.slice().buffer)]).toEqual([
      0x7ff8deadbeef0001n,
      0x7ff0000000000001n,
      0x8000000000000000n,
    ]);
    const big = tensorFrom('int64', [2, 1], [2n ** 53n + 1n, -(2n ** 63n)]);
    expect(tensorValues(gatherND(big, tensorFrom('int32', [1, 2], [1, 0])))).toEqual([
      -(2n ** 63n),
    ]);
  });

  it("oob 'zero' zeroes the whole slice when any coordinate is out of range", () => {
    const data = tensorFrom('int32', [2, 2, 2], iota(8, 1));
    const out = gatherND(data, tensorFrom('int64', [3, 2], [1, 1, 2, 0, 0, -3]), { oob: 'zero' });
    expect(tensorValues(out)).toEqual([7, 8, 0, 0, 0, 0]);
  });

  it('0-size: empty leading dims, empty slices, empty batches', () => {
    const data = tensorFrom('float32', [3, 4], iota(12));
    expect(gatherND(data, createTensor('int64', [0, 2])).shape).toEqual([0]);
    expect(
      gatherND(createTensor('float32', [3, 0]), tensorFrom('int64', [2, 1], [1, -1])).shape,
    ).toEqual([2, 0]);
    expect(
      gatherND(createTensor('int8', [0, 3]), createTensor('int32', [0, 5, 1]), { batchDims: 1 })
        .shape,
    ).toEqual([0, 5]);
  });
});

describe('gatherND: short slices from a large source (touch-then-copy groups)', () => {
  const cases: Array<[string, Dtype, number[], number, number]> = [
    ['float32 pairs, 8-byte slices, k=1', 'float32', [200000, 2], 1, 0],
    ['uint8 elements, k=2', 'uint8', [1000, 1000], 2, 0],
    ['S3 slices, batch_dims 1', 'S3', [2, 100000, 3], 1, 1],
  ];
  it.each(cases)('%s', (_name, dtype, shape, k, b) => {
    const data = randomData(dtype, shape, 11);
    const tuples = 300;
    const lead = [...shape.slice(0, b), tuples];
    const values: number[] = [];
    for (let i = 0; i < lead.reduce((x, y) => x * y, 1) * k; i++) {
      const size = shape[b + (i % k)] as number;
      values.push(i % 37 === 5 ? size : ((i * 104729) % (2 * size)) - size); // some out of range
    }
    const indices = tensorFrom('int64', [...lead, k], values);
    const ref = refGatherND(data, indices, b, 'zero');
    if (!ref.ok) throw new Error(ref.message);
    const out = gatherND(tensorAt(data, 3), indices, { batchDims: b, oob: 'zero' });
    expect(hex(out.data)).toBe(hex(ref.tensor.data));
  });
});

describe('gatherND: errors', () => {
  const data = tensorFrom('float32', [2, 3], iota(6));

  it('out-of-range coordinate: names the value, its position in indices, range and data axis', () => {
    expect(thrown(() => gatherND(data, tensorFrom('int64', [2, 2], [1, 2, 0, 3])))).toEqual({
      code: 'E_INDEX_RANGE',
      message: 'GatherND: index 3 out of range [-3, 2] at indices[1,1] (data axis 1)',
    });
    expect(thrown(() => gatherND(data, tensorFrom('int32', [1, 1], [-3]))).message).toBe(
      'GatherND: index -3 out of range [-2, 1] at indices[0,0] (data axis 0)',
    );
    const d3 = tensorFrom('int8', [2, 3, 4], iota(24));
    expect(
      thrown(() => gatherND(d3, tensorFrom('int64', [2, 1], [2, 4n ** 20n]), { batchDims: 1 }))
        .message,
    ).toBe('GatherND: index 1099511627776 out of range [-3, 2] at indices[1,0] (data axis 1)');
    expect(thrown(() => gatherND(data, tensorFrom('int64', [1], [2n ** 32n + 1n]))).message).toBe(
      'GatherND: index 4294967297 out of range [-2, 1] at indices[0] (data axis 0)',
    );
  });

  it('batch_dims outside [0, min(r, q) - 1]', () => {
    const idx = tensorFrom('int64', [2, 1], [0, 0]);
    expect(thrown(() => gatherND(data, idx, { batchDims: 2 }))).toEqual({
      code: 'E_BATCH_DIMS',
      message: 'GatherND: batch_dims 2 out of range [0, 1] for data rank 2 and indices rank 2',
    });
    expect(thrown(() => gatherND(data, idx, { batchDims: -1 })).code).toBe('E_BATCH_DIMS');
    expect(thrown(() => gatherND(data, idx, { batchDims: 0.5 })).code).toBe('E_BATCH_DIMS');
    expect(
      thrown(() => gatherND(data, tensorFrom('int64', [1], [0]), { batchDims: 1 })).message,
    ).toBe('GatherND: batch_dims 1 out of range [0, 0] for data rank 2 and indices rank 1');
  });

  it('batch dims must be equal', () => {
    expect(thrown(() => gatherND(data, createTensor('int64', [3, 1]), { batchDims: 1 }))).toEqual({
      code: 'E_SHAPE',
      message: 'GatherND: batch dims differ: data [2,3] vs indices [3,1] at dim 0 (batch_dims=1)',
    });
  });

  it('indices.shape[-1] must be in [1, r - batch_dims]', () => {
    expect(thrown(() => gatherND(data, createTensor('int64', [2, 3])))).toEqual({
      code: 'E_SHAPE',
      message:
        'GatherND: indices.shape[-1] is 3, out of range [1, 2] for data [2,3] with batch_dims=0',
    });
    expect(
      thrown(() => gatherND(data, createTensor('int64', [2, 2]), { batchDims: 1 })).message,
    ).toBe(
      'GatherND: indices.shape[-1] is 2, out of range [1, 1] for data [2,3] with batch_dims=1',
    );
    expect(thrown(() => gatherND(data, createTensor('int64', [4, 0]))).code).toBe('E_SHAPE');
  });

  it('scalars and non-integer indices', () => {
    expect(
      thrown(() => gatherND(tensorFrom('int32', [], [1]), tensorFrom('int64', [1], [0]))),
    ).toEqual({
      code: 'E_SHAPE',
      message: 'GatherND: data must have rank >= 1, got a scalar',
    });
    expect(thrown(() => gatherND(data, tensorFrom('int64', [], [0]))).message).toBe(
      'GatherND: indices must have rank >= 1, got a scalar',
    );
    expect(thrown(() => gatherND(data, tensorFrom('float64', [1], [0])))).toEqual({
      code: 'E_DTYPE',
      message: 'GatherND: indices must have an integer dtype, got float64',
    });
  });
});

describe('planGatherND: a pure slice plan', () => {
  it('maps each output slice to a source slice number, ZERO_FILL for oob under zero', () => {
    const plan = planGatherND(
      { dtype: 'complex64', shape: [2, 3, 4, 5] },
      tensorFrom('int32', [2, 3, 2], [0, 0, 2, 3, -1, -1, 1, 0, 1, 9, 0, -4]),
      { batchDims: 1, oob: 'zero' },
    );
    expect(plan.outShape).toEqual([2, 3, 5]);
    expect(plan.sliceBytes).toBe(40);
    // batch b, coords (i, j) -> b * 12 + i * 4 + j
    expect([...plan.slices]).toEqual([0, 11, 11, 16, ZERO_FILL, 12]);
  });

  it('runGatherNDPlan leaves ZERO_FILL slices of the caller buffer alone', () => {
    const data = tensorFrom('uint8', [3, 2], iota(6, 1));
    const plan = planGatherND(data, tensorFrom('int64', [3, 1], [2, 5, 0]), { oob: 'zero' });
    const dst = new Uint8Array(6).fill(0xee);
    runGatherNDPlan(plan, data.data, dst);
    expect(hex(dst)).toBe('0506eeee0102');
  });
});

interface NDCaseJson {
  name: string;
  data: { dtype: string; shape: number[]; b64: string };
  indices: { dtype: string; shape: number[]; b64: string };
  batchDims: number;
  flattenBatch?: boolean;
  oob?: 'zero';
  expected: { dtype: string; shape: number[]; b64: string };
}

const cases = readFixture<NDCaseJson[]>('gather_nd/cases.json').map((c) => ({
  name: c.name,
  data: tensorFromJson(c.data),
  indices: tensorFromJson(c.indices),
  options: {
    batchDims: c.batchDims,
    flattenBatch: c.flattenBatch ?? false,
    oob: c.oob ?? ('error' as const),
  },
  expected: tensorFromJson(c.expected),
}));

describe('gatherND matches numpy golden fixtures (scripts/fixtures/gather_elements_nd.py)', () => {
  it('loads a fixture set covering every dtype family, index dtype and batch_dims 0-3', () => {
    expect(cases.length).toBeGreaterThan(120);
    const dtypes = new Set(cases.map((c) => c.data.dtype));
    for (const d of ['bool', 'uint64', 'float16', 'bfloat16', 'complex128', 'U3', 'S5']) {
      expect(dtypes).toContain(d);
    }
    expect(new Set(cases.map((c) => c.indices.dtype)).size).toBe(8);
    expect(new Set(cases.map((c) => c.options.batchDims))).toEqual(new Set([0, 1, 2, 3]));
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const out = gatherND(c.data, c.indices, c.options);
    expect(out.dtype).toBe(c.expected.dtype);
    expect(out.shape).toEqual(c.expected.shape);
    expect(hex(out.data)).toBe(hex(c.expected.data));
  });

  it('gives the same bytes with data and indices at odd byte offsets', () => {
    for (const [n, c] of cases.entries()) {
      const out = gatherND(
        tensorAt(c.data, 1 + (n % 7)),
        tensorAt(c.indices, 1 + ((n * 3) % 7)),
        c.options,
      );
      expect(hex(out.data), c.name).toBe(hex(c.expected.data));
    }
  });

  it('the slow reference agrees with numpy too', () => {
    for (const c of cases) {
      const { batchDims, oob, flattenBatch } = c.options;
      const ref = refGatherND(c.data, c.indices, batchDims, oob, flattenBatch);
      if (!ref.ok) throw new Error(`${c.name}: ${ref.message}`);
      expect(ref.tensor.shape, c.name).toEqual(c.expected.shape);
      expect(hex(ref.tensor.data), c.name).toBe(hex(c.expected.data));
    }
  });
});

describe('gatherND: the out option', () => {
  it('writes into out and returns it, zero-filling out-of-range slices of a dirty out', () => {
    const data = tensorFrom('int32', [2, 2], [0, 1, 2, 3]);
    const out = createTensor('int32', [2]);
    out.data.fill(0xff);
    expect(gatherND(data, tensorFrom('int64', [2, 2], [1, 1, 0, 1]), { out })).toBe(out);
    expect(tensorValues(out)).toEqual([3, 1]);
    out.data.fill(0xff);
    gatherND(data, tensorFrom('int64', [2, 2], [5, 0, 1, 0]), { oob: 'zero', out });
    expect(tensorValues(out)).toEqual([0, 2]);
    expect(thrown(() => gatherND(data, tensorFrom('int64', [1, 2], [0, 0]), { out }))).toEqual({
      code: 'E_SHAPE',
      message: 'GatherND: out must be int32 [1], got int32 [2]',
    });
  });
});
