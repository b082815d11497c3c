import { describe, expect, it } from 'vitest';
import { hex, thrown } from '../../test/assert.js';
import { readFixture, tensorAt, tensorFromJson } from '../../test/fixtures.js';
import { randomData, refGatherElements } from '../../test/reference-elements-nd.js';
import type { Dtype } from '../dtype.js';
import { ZERO_FILL } from '../indices.js';
import { createTensor, tensorFrom, tensorValues } from '../tensor.js';
import { gatherElements, planGatherElements, runGatherElementsPlan } from './index.js';

describe('gatherElements: OpenVINO GatherElements-6 spec examples', () => {
  it('example 1: axis 0', () => {
    const out = gatherElements(
      tensorFrom('int32', [2, 2], [1, 2, 3, 4]),
      tensorFrom('int64', [2, 2], [0, 1, 0, 0]),
      { axis: 0 },
    );
    expect(out.shape).toEqual([2, 2]);
    expect(tensorValues(out)).toEqual([1, 4, 1, 2]);
  });

  it('example 2: axis 1, indices longer than data along the axis', () => {
    const out = gatherElements(
      tensorFrom('int32', [2, 2], [1, 7, 4, 3]),
      tensorFrom('int32', [2, 3], [1, 1, 0, 1, 0, 1]),
      { axis: 1 },
    );
    expect(out.shape).toEqual([2, 3]);
    expect(tensorValues(out)).toEqual([7, 7, 1, 3, 4, 3]);
  });

  it('example 3: axis 0, indices smaller than data', () => {
    const out = gatherElements(
      tensorFrom('int32', [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]),
      tensorFrom('int64', [2, 3], [1, 0, 1, 1, 2, 0]),
      { axis: 0 },
    );
    expect(out.shape).toEqual([2, 3]);
    expect(tensorValues(out)).toEqual([4, 2, 6, 4, 8, 3]);
  });

  it('the IR example: data [3,7,5], indices [3,10,5], axis 1 -> output [3,10,5]', () => {
    const data = tensorFrom(
      'float32',
      [3, 7, 5],
      Array.from({ length: 105 }, (_, i) => i),
    );
    const idx = Array.from({ length: 150 }, (_, i) => (i * 5) % 7);
    const out = gatherElements(data, tensorFrom('int32', [3, 10, 5], idx), { axis: 1 });
    expect(out.shape).toEqual([3, 10, 5]);
    const values = tensorValues(out);
    // out[i][j][k] = data[i][indices[i][j][k]][k]
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 10; j++) {
        for (let k = 0; k < 5; k++) {
          const f = (i * 10 + j) * 5 + k;
          expect(values[f]).toBe(i * 35 + (idx[f] as number) * 5 + k);
        }
      }
    }
  });
});

describe('gatherElements: ONNX GatherElements examples', () => {
  it('axis 1', () => {
    const out = gatherElements(
      tensorFrom('float32', [2, 2], [1, 2, 3, 4]),
      tensorFrom('int64', [2, 2], [0, 0, 1, 0]),
      { axis: 1 },
    );
    expect(tensorValues(out)).toEqual([1, 1, 4, 3]);
  });

  it('axis 0 with negative indices', () => {
    const out = gatherElements(
      tensorFrom('float32', [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]),
      tensorFrom('int32', [2, 3], [-1, -2, 0, -2, 0, 0]),
      { axis: 0 },
    );
    expect(tensorValues(out)).toEqual([7, 5, 3, 4, 2, 3]);
  });
});

describe('gatherElements: options and shapes', () => {
  const data = tensorFrom(
    'int16',
    [2, 3, 4],
    Array.from({ length: 24 }, (_, i) => i),
  );

  it('defaults to axis 0 and accepts negative axes', () => {
    const idx = tensorFrom(
      'int64',
      [1, 3, 4],
      Array.from({ length: 12 }, (_, i) => i % 2),
    );
    expect(tensorValues(gatherElements(data, idx))).toEqual(
      tensorValues(gatherElements(data, idx, { axis: -3 })),
    );
    const last = tensorFrom('uint8', [2, 3, 1], [3, 2, 1, 0, 3, 3]);
    expect(tensorValues(gatherElements(data, last, { axis: -1 }))).toEqual([3, 6, 9, 12, 19, 23]);
    expect(tensorValues(gatherElements(data, last, { axis: 2 }))).toEqual([3, 6, 9, 12, 19, 23]);
  });

  it('off-axis dims of indices smaller than data on several axes at once', () => {
    // out[i][j][k] = data[i][j][idx] with indices [1,2,2]: reads only the top-left corner.
    const out = gatherElements(data, tensorFrom('int32', [1, 2, 2], [3, 0, -1, 1]), { axis: 2 });
    expect(out.shape).toEqual([1, 2, 2]);
    expect(tensorValues(out)).toEqual([3, 0, 7, 5]);
    // axis 1 with inner dims smaller than data's: out[i][j][k] = data[i][idx][k], k < 2
    const mid = gatherElements(
      data,
      tensorFrom('int64', [2, 3, 2], [2, 0, 1, 1, 0, -1, 2, 1, 1, 1, 0, -1]),
      {
        axis: 1,
      },
    );
    expect(tensorValues(mid)).toEqual([8, 1, 4, 5, 0, 9, 20, 17, 16, 17, 12, 21]);
  });

  it('rank 1 is take', () => {
    const out = gatherElements(
      tensorFrom('uint64', [3], [2n ** 64n - 1n, 2n ** 53n + 1n, 7n]),
      tensorFrom('int8', [5], [2, 0, -2, 1, -3]),
    );
    expect(tensorValues(out)).toEqual([
      7n,
      2n ** 64n - 1n,
      2n ** 53n + 1n,
      2n ** 53n + 1n,
      2n ** 64n - 1n,
    ]);
  });

  it('0-size: empty indices give an empty output; any index into an empty axis is out of range', () => {
    expect(gatherElements(data, createTensor('int64', [2, 0, 4]), { axis: 1 }).shape).toEqual([
      2, 0, 4,
    ]);
    expect(
      gatherElements(data, createTensor('int64', [0, 3, 9]), { axis: 2 }).data.byteLength,
    ).toBe(0);
    const empty = createTensor('float32', [2, 0]);
    expect(
      thrown(() => gatherElements(empty, tensorFrom('int32', [1, 1], [0]), { axis: 1 })),
    ).toEqual({
      code: 'E_INDEX_RANGE',
      message: 'GatherElements: index 0 out of range [0, -1] at indices[0,0] (axis=1)',
    });
  });

  it('moves float bits untouched: signalling NaN, NaN payloads, -0.0 (float32 and float64)', () => {
    const f32 = new Uint32Array([0x7f800001, 0xffc00001, 0x80000000, 0x7fbfffff]);
    const d32 = createTensor('float32', [4], new Uint8Array(f32.buffer));
    const out32 = gatherElements(d32, tensorFrom('int32', [4], [3, 2, 1, 0]));
    expect([...new Uint32Array(out32.data.buffer)]).toEqual([
      0x7fbfffff, 0x80000000, 0xffc00001, 0x7f800001,
    ]);
    const f64 = new BigUint64Array([0x7ff0000000000001n, 0xfff8deadbeef0001n]);
    const d64 = createTensor('float64', [2], new Uint8Array(f64.buffer));
    const out64 = gatherElements(tensorAt(d64, 3), tensorFrom('int64', [3], [1, 0, -1]));
    expect([...new BigUint64Array(out64.data.buffer)]).toEqual([
      0xfff8deadbeef0001n,
      0x7ff0000000000001n,
      0xfff8deadbeef0001n,
    ]);
  });

  it("oob 'zero' fills zeros and still takes the in-range elements", () => {
    const out = gatherElements(
      tensorFrom('int32', [2, 3], [1, 2, 3, 4, 5, 6]),
      tensorFrom('int64', [2, 3], [2, 3, -4, -3, 2n ** 32n + 1n, 0]),
      { axis: 1, oob: 'zero' },
    );
    expect(tensorValues(out)).toEqual([3, 0, 0, 4, 0, 4]);
  });
});

describe('gatherElements: cache tiling on long axes', () => {
  // With ~1 MiB of data rows along the axis the kernel walks the output in column tiles narrower
  // than the inner dims (16 float32 / 8 float64 here); the bytes must not change.
  const cases: Array<[string, Dtype, number[], number[], number]> = [
    ['float32, axis 0, tile 16 < inner 20', 'float32', [20000, 20], [3, 20], 0],
    ['float64, axis 0, tile 8 < inner 10', 'float64', [20000, 10], [4, 10], 0],
    ['float32, smaller inner dims than data', 'float32', [20000, 20, 2], [3, 20, 1], 0],
    ['float32, middle axis with outer > 1', 'float32', [2, 20000, 20], [2, 3, 18], 1],
    ['S3 (byte words), axis 0', 'S3', [20000, 30], [2, 25], 0],
  ];
  it.each(cases)('%s', (_name, dtype, shape, indexShape, axis) => {
    const data = randomData(dtype, shape, 5);
    const n = indexShape.reduce((x, y) => x * y, 1);
    const size = shape[axis] as number;
    const values = Array.from({ length: n }, (_, i) => ((i * 7919) % (2 * size)) - size);
    const indices = tensorFrom('int32', indexShape, values);
    const ref = refGatherElements(data, indices, axis, 'error');
    if (!ref.ok) throw new Error(ref.message);
    expect(hex(gatherElements(data, indices, { axis }).data)).toBe(hex(ref.tensor.data));
  });
});

describe('gatherElements: one element per output row along an earlier axis', () => {
  // Indices [n, 1] along axis 0 of data [n, 3]: each output row reads one element of a column,
  // axisStride 3 apart, through the eight-at-a-time word loop (copy.ts's copyWords1). Indices
  // other than int32/int64, or oob 'zero', take the planned path that runs it.
  const data = randomData('float32', [40, 3], 9);
  // -45 .. 44: a few outside [-40, 39], for oob 'zero'
  const values = Array.from({ length: 40 }, (_, i) => ((i * 17) % 90) - 45);
  const cases: Array<[string, Dtype, 'error' | 'zero']> = [
    ['int16 indices', 'int16', 'error'],
    ['int64 indices, some out of range, oob zero', 'int64', 'zero'],
  ];
  it.each(cases)('%s', (_name, indexDtype, oob) => {
    const picked = oob === 'zero' ? values : values.map((v) => Math.min(39, Math.max(v, -40)));
    const indices = tensorFrom(indexDtype, [40, 1], picked);
    const ref = refGatherElements(data, indices, 0, oob);
    if (!ref.ok) throw new Error(ref.message);
    expect(hex(gatherElements(data, indices, { axis: 0, oob }).data)).toBe(hex(ref.tensor.data));
  });
});

describe('gatherElements: errors', () => {
  it('out-of-range index: names the value, its position in indices and the valid range', () => {
    const data = tensorFrom(
      'float32',
      [2, 5],
      Array.from({ length: 10 }, (_, i) => i),
    );
    expect(
      thrown(() => gatherElements(data, tensorFrom('int64', [2, 1], [4, 7]), { axis: 1 })),
    ).toEqual({
      code: 'E_INDEX_RANGE',
      message: 'GatherElements: index 7 out of range [-5, 4] at indices[1,0] (axis=1)',
    });
    expect(
      thrown(() => gatherElements(data, tensorFrom('int8', [1, 2], [0, -6]), { axis: -1 })).message,
    ).toBe('GatherElements: index -6 out of range [-5, 4] at indices[0,1] (axis=1)');
  });

  it('compares 64-bit indices exactly: 2^32+1 is not 1, 2^53+1 and 2^64-1 are printed exactly', () => {
    const data = tensorFrom('int8', [3], [1, 2, 3]);
    expect(
      thrown(() => gatherElements(data, tensorFrom('int64', [2], [1, 2n ** 32n + 1n]))).message,
    ).toBe('GatherElements: index 4294967297 out of range [-3, 2] at indices[1] (axis=0)');
    expect(
      thrown(() => gatherElements(data, tensorFrom('int64', [1], [-(2n ** 53n) - 1n]))).message,
    ).toBe('GatherElements: index -9007199254740993 out of range [-3, 2] at indices[0] (axis=0)');
    expect(
      thrown(() => gatherElements(data, tensorFrom('uint64', [1], [2n ** 64n - 1n]))).message,
    ).toBe(
      'GatherElements: index 18446744073709551615 out of range [-3, 2] at indices[0] (axis=0)',
    );
  });

  it('rank: data must not be a scalar; indices must have the same rank', () => {
    const scalar = tensorFrom('int32', [], [1]);
    expect(thrown(() => gatherElements(scalar, tensorFrom('int32', [], [0])))).toEqual({
      code: 'E_SHAPE',
      message: 'GatherElements: data must have rank >= 1, got a scalar',
    });
    const data = tensorFrom('int32', [2, 2], [1, 2, 3, 4]);
    expect(thrown(() => gatherElements(data, tensorFrom('int32', [2], [0, 1])))).toEqual({
      code: 'E_SHAPE',
      message:
        'GatherElements: indices must have the rank of data (2), got indices [2] (rank 1) for data [2,2]',
    });
  });

  it('an off-axis dim of indices larger than data is an error naming the dim', () => {
    const data = tensorFrom('int32', [2, 3], [1, 2, 3, 4, 5, 6]);
    expect(thrown(() => gatherElements(data, createTensor('int32', [2, 4]), { axis: 0 }))).toEqual({
      code: 'E_SHAPE',
      message:
        "GatherElements: indices dim 1 is 4, larger than data dim 1 (3): indices [2,4] vs data [2,3] (axis=0); off-axis dims must be <= data's",
    });
    // ...while the axis dim itself may be any size.
    expect(gatherElements(data, createTensor('int32', [2, 9]), { axis: 1 }).shape).toEqual([2, 9]);
  });

  it('axis out of range and non-integer axis', () => {
    const data = tensorFrom('int32', [2, 2], [1, 2, 3, 4]);
    const idx = tensorFrom('int32', [2, 2], [0, 0, 0, 0]);
    expect(thrown(() => gatherElements(data, idx, { axis: 2 }))).toEqual({
      code: 'E_AXIS',
      message: 'GatherElements: axis 2 out of range [-2, 1] for rank 2',
    });
    expect(thrown(() => gatherElements(data, idx, { axis: -3 })).code).toBe('E_AXIS');
    expect(thrown(() => gatherElements(data, idx, { axis: 0.5 })).code).toBe('E_AXIS');
  });

  it('float and bool indices are refused', () => {
    const data = tensorFrom('int32', [2], [1, 2]);
    expect(thrown(() => gatherElements(data, tensorFrom('float32', [1], [0])))).toEqual({
      code: 'E_DTYPE',
      message: 'GatherElements: indices must have an integer dtype, got float32',
    });
    expect(thrown(() => gatherElements(data, tensorFrom('bool', [1], [false]))).code).toBe(
      'E_DTYPE',
    );
  });
});

describe('planGatherElements: a pure plan an executor can run without the data bytes', () => {
  it('needs only dtype and shape of data; offsets follow data strides for smaller indices', () => {
    const indices = tensorFrom('int64', [2, 2, 2], [1, 0, -1, 2, 0, 0, 1, 1]);
    const plan = planGatherElements({ dtype: 'float64', shape: [3, 3, 4] }, indices, { axis: 1 });
    expect(plan.outShape).toEqual([2, 2, 2]);
    expect(plan.itemBytes).toBe(8);
    expect([plan.outer, plan.indicesAxisSize, plan.inner, plan.axisSize, plan.axisStride]).toEqual([
      2, 2, 2, 3, 4,
    ]);
    expect([...plan.outerOffsets]).toEqual([0, 12]);
    expect(plan.innerOffsets && [...plan.innerOffsets]).toEqual([0, 1]);
    expect([...plan.positions]).toEqual([1, 0, 2, 2, 0, 0, 1, 1]);
  });

  it('inner offsets are null when inner dims match; oob zero marks ZERO_FILL', () => {
    const plan = planGatherElements(
      { dtype: 'uint8', shape: [2, 3] },
      tensorFrom('int32', [1, 3], [5, 1, -1]),
      { axis: 0, oob: 'zero' },
    );
    expect(plan.innerOffsets).toBeNull();
    expect([...plan.positions]).toEqual([ZERO_FILL, 1, 1]);
  });

  it('runGatherElementsPlan writes into a caller buffer, leaving ZERO_FILL elements alone', () => {
    const data = tensorFrom('uint16', [2, 3], [10, 11, 12, 13, 14, 15]);
    const plan = planGatherElements(data, tensorFrom('int32', [2, 2], [2, 9, -1, 0]), {
      axis: 1,
      oob: 'zero',
    });
    const dst = new Uint8Array(8).fill(0xee);
    runGatherElementsPlan(plan, data.data, dst);
    expect(hex(dst)).toBe('0c00eeee0f000d00');
  });
});

interface ElementsCaseJson {
  name: string;
  data: { dtype: string; shape: number[]; b64: string };
  indices: { dtype: string; shape: number[]; b64: string };
  axis: number;
  oob?: 'zero';
  expected: { dtype: string; shape: number[]; b64: string };
}

const cases = readFixture<ElementsCaseJson[]>('gather_elements/cases.json').map((c) => ({
  name: c.name,
  data: tensorFromJson(c.data),
  indices: tensorFromJson(c.indices),
  axis: c.axis,
  oob: c.oob ?? ('error' as const),
  expected: tensorFromJson(c.expected),
}));

describe('gatherElements matches numpy golden fixtures (scripts/fixtures/gather_elements_nd.py)', () => {
  it('loads a fixture set covering every dtype family and index dtype', () => {
    expect(cases.length).toBeGreaterThan(150);
    const dtypes = new Set(cases.map((c) => c.data.dtype));
    for (const d of ['bool', 'uint64', 'float16', 'bfloat16', 'complex128', 'U3', 'S2', 'S300']) {
      expect(dtypes).toContain(d);
    }
    const indexDtypes = new Set(cases.map((c) => c.indices.dtype));
    expect(indexDtypes.size).toBe(8);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const out = gatherElements(c.data, c.indices, { axis: c.axis, oob: c.oob });
    expect(out.dtype).toBe(c.expected.dtype);
    expect(out.shape).toEqual(c.expected.shape);
    expect(hex(out.data)).toBe(hex(c.expected.data));
  });

  it('gives the same bytes with data and indices at odd byte offsets', () => {
    for (const [n, c] of cases.entries()) {
      const out = gatherElements(
        tensorAt(c.data, 1 + (n % 7)),
        tensorAt(c.indices, 1 + ((n * 3) % 7)),
        { axis: c.axis, oob: c.oob },
      );
      expect(hex(out.data), c.name).toBe(hex(c.expected.data));
    }
  });

  it('the slow reference agrees with numpy too', () => {
    for (const c of cases) {
      const ref = refGatherElements(c.data, c.indices, c.axis, c.oob);
      if (!ref.ok) throw new Error(`${c.name}: ${ref.message}`);
      expect(ref.tensor.shape, c.name).toEqual(c.expected.shape);
      expect(hex(ref.tensor.data), c.name).toBe(hex(c.expected.data));
    }
  });
});
