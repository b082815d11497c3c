import { describe, expect, it } from 'vitest';
import { placeAt, tensorAt } from '../test/fixtures.js';
import type { Dtype } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { type GatherOptions, gather, planGather, runGatherPlan } from './gather.js';
import { createTensor, type Tensor, tensorFrom, tensorValues } from './tensor.js';

const iota = (n: number, start = 0): number[] => Array.from({ length: n }, (_, i) => start + i);

/** Runs gather and expects a TensorOpsError with exactly this code and message. */
function expectError(
  data: Tensor,
  indices: Tensor,
  options: GatherOptions,
  code: string,
  message: string | RegExp,
): void {
  let caught: unknown;
  try {
    gather(data, indices, options);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(TensorOpsError);
  const error = caught as TensorOpsError;
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
}

describe('ONNX Gather-13 examples', () => {
  const f32 = (shape: number[], values: number[]) => tensorFrom('float32', shape, values);

  it('axis = 0: data [3,2], indices [[0,1],[1,2]] -> [2,2,2]', () => {
    const data = f32([3, 2], [1.0, 1.2, 2.3, 3.4, 4.5, 5.7]);
    const out = gather(data, tensorFrom('int64', [2, 2], [0, 1, 1, 2]), { axis: 0 });
    expect(out.dtype).toBe('float32');
    expect(out.shape).toEqual([2, 2, 2]);
    expect(out.data).toEqual(f32([2, 2, 2], [1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7]).data);
  });

  it('axis = 1: data [3,3], indices [[0,2]] -> [3,1,2]', () => {
    const data = f32([3, 3], [1.0, 1.2, 1.9, 2.3, 3.4, 3.9, 4.5, 5.7, 5.9]);
    const out = gather(data, tensorFrom('int64', [1, 2], [0, 2]), { axis: 1 });
    expect(out.shape).toEqual([3, 1, 2]);
    expect(out.data).toEqual(f32([3, 1, 2], [1.0, 1.9, 2.3, 3.9, 4.5, 5.9]).data);
  });

  // The shape table: P, Q, R, S = 4, 3, 2, 5 and its output equations written out as loops.
  const [P, Q, R, S] = [4, 3, 2, 5];
  const at = (t: Tensor, ...index: number[]): number | bigint => {
    let flat = 0;
    for (const [d, i] of index.entries()) flat = flat * (t.shape[d] as number) + i;
    return tensorValues(t)[flat] as number;
  };

  it('(P,Q) with scalar indices, axis 0 -> (Q): output[q] = data[indices, q]', () => {
    const data = tensorFrom('int32', [P, Q], iota(P * Q, 100));
    const indices = tensorFrom('int32', [], [2]);
    const out = gather(data, indices, { axis: 0 });
    expect(out.shape).toEqual([Q]);
    for (let q = 0; q < Q; q++) expect(at(out, q)).toBe(at(data, 2, q));
  });

  it('(P,Q,R) with scalar indices, axis 1 -> (P,R): output[p,r] = data[p, indices, r]', () => {
    const data = tensorFrom('int32', [P, Q, R], iota(P * Q * R, 100));
    const out = gather(data, tensorFrom('int64', [], [-1]), { axis: 1 });
    expect(out.shape).toEqual([P, R]);
    for (let p = 0; p < P; p++)
      for (let r = 0; r < R; r++) expect(at(out, p, r)).toBe(at(data, p, Q - 1, r));
  });

  const rs = [0, 3, 1, 1, 2, 0, 3, 2, 0, 1];
  it('(P,Q) with (R,S) indices, axis 0 -> (R,S,Q): output[r,s,q] = data[indices[r,s], q]', () => {
    const data = tensorFrom('int32', [P, Q], iota(P * Q, 100));
    const indices = tensorFrom('int64', [R, S], rs);
    const out = gather(data, indices, { axis: 0 });
    expect(out.shape).toEqual([R, S, Q]);
    for (let r = 0; r < R; r++)
      for (let s = 0; s < S; s++)
        for (let q = 0; q < Q; q++)
          expect(at(out, r, s, q)).toBe(at(data, Number(at(indices, r, s)), q));
  });

  it('(P,Q) with (R,S) indices, axis 1 -> (P,R,S): output[p,r,s] = data[p, indices[r,s]]', () => {
    const data = tensorFrom('int32', [P, Q], iota(P * Q, 100));
    const indices = tensorFrom(
      'int32',
      [R, S],
      rs.map((v) => v % Q),
    );
    const out = gather(data, indices, { axis: 1 });
    expect(out.shape).toEqual([P, R, S]);
    for (let p = 0; p < P; p++)
      for (let r = 0; r < R; r++)
        for (let s = 0; s < S; s++)
          expect(at(out, p, r, s)).toBe(at(data, p, Number(at(indices, r, s))));
  });
});

describe('OpenVINO Gather-1 example', () => {
  it('data [6,12,10,24], indices [15,4,20,28], axis 1 -> [6,15,4,20,28,10,24]', () => {
    // The full output is 48M elements: plan only (planning never touches data bytes).
    const indices = createTensor('int32', [15, 4, 20, 28]);
    const plan = planGather({ dtype: 'float32', shape: [6, 12, 10, 24] }, indices, { axis: 1 });
    expect(plan.outShape).toEqual([6, 15, 4, 20, 28, 10, 24]);
    expect([plan.batch, plan.outer, plan.axisSize, plan.perBatch]).toEqual([
      1,
      6,
      12,
      15 * 4 * 20 * 28,
    ]);
    expect(plan.blockBytes).toBe(10 * 24 * 4);
  });
});

describe('OpenVINO Gather-7 examples', () => {
  const i32 = (shape: number[], values: number[]) => tensorFrom('int32', shape, values);

  it('example 1: batch_dims 0, axis 0', () => {
    const out = gather(i32([5], [1, 2, 3, 4, 5]), i32([3], [0, 0, 4]), { axis: 0, batchDims: 0 });
    expect(out.shape).toEqual([3]);
    expect(tensorValues(out)).toEqual([1, 1, 5]);
  });

  it('example 2: batch_dims 1, axis 1', () => {
    const data = i32([2, 5], iota(10, 1));
    const out = gather(data, i32([2, 3], [0, 0, 4, 4, 0, 0]), { axis: 1, batchDims: 1 });
    expect(out.shape).toEqual([2, 3]);
    expect(tensorValues(out)).toEqual([1, 1, 5, 10, 6, 6]);
  });

  it('example 3: batch_dims 2, axis 2', () => {
    const data = i32([2, 2, 5], iota(20, 1));
    const indices = i32([2, 2, 3], [0, 0, 4, 4, 0, 0, 1, 2, 4, 4, 3, 2]);
    const out = gather(data, indices, { axis: 2, batchDims: 2 });
    expect(out.shape).toEqual([2, 2, 3]);
    expect(tensorValues(out)).toEqual([1, 1, 5, 10, 6, 6, 12, 13, 15, 20, 19, 18]);
  });

  it('example 4: batch_dims 1, axis 2 (axis > batch_dims)', () => {
    const data = i32([2, 1, 5, 4], iota(40, 1));
    const out = gather(data, i32([2, 3], [1, 2, 4, 4, 3, 2]), { axis: 2, batchDims: 1 });
    expect(out.shape).toEqual([2, 1, 3, 4]);
    // biome-ignore format: rows of the spec's output
    expect(tensorValues(out)).toEqual([
      5, 6, 7, 8,  9, 10, 11, 12,  17, 18, 19, 20,
      37, 38, 39, 40,  33, 34, 35, 36,  29, 30, 31, 32,
    ]);
  });

  it('the XML example: data [2,64,128], indices [2,32,21], batch_dims 1, axis 1 -> [2,32,21,128]', () => {
    const data = createTensor('float32', [2, 64, 128]);
    new Uint32Array(data.data.buffer).forEach((_, i, a) => {
      a[i] = (i * 2654435761) >>> 0; // every element distinct, NaN patterns included
    });
    const indices = i32(
      [2, 32, 21],
      iota(2 * 32 * 21).map((i) => ((i * 37) % 128) - 64),
    );
    const out = gather(data, indices, { axis: 1, batchDims: 1 });
    expect(out.shape).toEqual([2, 32, 21, 128]);
    // output[b, i, j, k] = data[b, indices[b, i, j], k], compared as bit patterns.
    const src = new Uint32Array(data.data.buffer);
    const idx = new Int32Array(indices.data.buffer);
    const expected = new Uint32Array(2 * 32 * 21 * 128);
    for (let b = 0; b < 2; b++)
      for (let ij = 0; ij < 32 * 21; ij++) {
        const k = (idx[b * 32 * 21 + ij] as number) & 63; // -64..63 -> 0..63
        for (let c = 0; c < 128; c++) {
          expected[(b * 32 * 21 + ij) * 128 + c] = src[(b * 64 + k) * 128 + c] as number;
        }
      }
    const actual = new Uint32Array(out.data.buffer);
    expect(actual.findIndex((v, i) => v !== expected[i])).toBe(-1); // toEqual on 172k items is slow
  });
});

describe('gather semantics', () => {
  it('negative axis, negative batch_dims and negative indices count from the end', () => {
    const data = tensorFrom('int32', [2, 3, 2], iota(12));
    const indices = tensorFrom('int8', [2, 2], [-1, 0, 2, -3]);
    const plain = gather(data, indices, { axis: 1, batchDims: 1 });
    expect(tensorValues(plain)).toEqual([4, 5, 0, 1, 10, 11, 6, 7]);
    for (const options of [
      { axis: -2, batchDims: 1 },
      { axis: 1, batchDims: -1 },
      { axis: -2, batchDims: -1 },
    ]) {
      expect(gather(data, indices, options)).toEqual(plain);
    }
  });

  it('batch_dims equal to the indices rank takes one index per batch entry', () => {
    const data = tensorFrom('int16', [3, 4], iota(12));
    const out = gather(data, tensorFrom('uint8', [3], [3, 0, 2]), { axis: 1, batchDims: 1 });
    expect(out.shape).toEqual([3]);
    expect(tensorValues(out)).toEqual([3, 4, 10]);
  });

  it('copies 64-bit integers beyond 2^53 and float bit patterns exactly', () => {
    const big = tensorFrom('uint64', [3], [2n ** 64n - 1n, 2n ** 53n + 1n, 0n]);
    expect(tensorValues(gather(big, tensorFrom('int32', [3], [1, 0, 1])))).toEqual([
      2n ** 53n + 1n,
      2n ** 64n - 1n,
      2n ** 53n + 1n,
    ]);
    // Signalling NaN 0x7f800001, a NaN with payload, -0.0: JS number round trips would alter the first.
    const bits = new Uint32Array([0x7f800001, 0xffc12345, 0x80000000]);
    const f32 = createTensor('float32', [3], new Uint8Array(bits.buffer));
    const out = gather(f32, tensorFrom('int64', [4], [0, 2, 1, 0]));
    expect(Array.from(new Uint32Array(out.data.buffer))).toEqual([
      0x7f800001, 0x80000000, 0xffc12345, 0x7f800001,
    ]);
    const f64 = createTensor(
      'float64',
      [1],
      new Uint8Array(new BigUint64Array([0x7ff0000000000001n]).buffer),
    );
    expect(new BigUint64Array(gather(f64, tensorFrom('int32', [2], [0, -1])).data.buffer)).toEqual(
      new BigUint64Array([0x7ff0000000000001n, 0x7ff0000000000001n]),
    );
  });

  it('moves bfloat16 and float8 elements as opaque bits', () => {
    const bf16 = createTensor(
      'bfloat16',
      [2, 3],
      new Uint8Array(new Uint16Array([0x7f81, 0xff80, 0x8000, 0x3f80, 0x7fc1, 0x0001]).buffer),
    );
    const out = gather(bf16, tensorFrom('int32', [2], [2, -3]), { axis: 1 });
    expect(Array.from(new Uint16Array(out.data.buffer))).toEqual([0x8000, 0x7f81, 0x0001, 0x3f80]);
    const f8 = createTensor('float8_e4m3fn', [4], Uint8Array.of(0x7f, 0xff, 0x80, 0x01));
    expect(Array.from(gather(f8, tensorFrom('int32', [3], [3, 1, 0])).data)).toEqual([
      0x01, 0xff, 0x7f,
    ]);
  });

  it('0-size data dims and empty indices give empty outputs of the right shape', () => {
    const cases: Array<[number[], number[], GatherOptions, number[]]> = [
      [[0, 3], [2], { axis: 1 }, [0, 2]],
      [[3, 0], [2], { axis: 0 }, [2, 0]],
      [[0], [0], { axis: 0 }, [0]],
      [[2, 3], [2, 0], { axis: 1 }, [2, 2, 0]],
      [[0, 4], [0, 2], { axis: 1, batchDims: 1 }, [0, 2]],
    ];
    for (const [dataShape, indexShape, options, outShape] of cases) {
      const indices = createTensor('int64', indexShape);
      const out = gather(createTensor('float32', dataShape), indices, options);
      expect(out.shape).toEqual(outShape);
      expect(out.data.byteLength).toBe(0);
    }
  });

  it("oob: 'zero' zero-fills out-of-range slices and keeps the rest", () => {
    const data = tensorFrom('int32', [3, 2], [1, 2, 3, 4, 5, 6]);
    const indices = tensorFrom('int64', [4], [2, 3, -4, -3]);
    const out = gather(data, indices, { oob: 'zero' });
    expect(tensorValues(out)).toEqual([5, 6, 0, 0, 0, 0, 1, 2]);
    // One word per element (the single-word copy loop), in a row other than the first.
    const data23 = tensorFrom('float32', [2, 3], [1, 2, 3, 4, 5, 6]);
    const flat = gather(data23, tensorFrom('int32', [2], [3, 0]), { axis: 1, oob: 'zero' });
    expect(tensorValues(flat)).toEqual([0, 1, 0, 4]);
    // Long blocks take the memmove path; the zero fill must hold there too.
    const wide = createTensor('uint8', [2, 300], new Uint8Array(600).fill(7));
    const zeroed = gather(wide, tensorFrom('uint64', [2], [5n, 1n]), { oob: 'zero' });
    expect(zeroed.data.subarray(0, 300).every((b) => b === 0)).toBe(true);
    expect(zeroed.data.subarray(300).every((b) => b === 7)).toBe(true);
  });
});

describe('gather errors', () => {
  const data3 = tensorFrom('float32', [2, 3, 4], iota(24));
  const idx = tensorFrom('int32', [1], [0]);

  it('axis = r and axis = -r-1 are out of range for every rank (the check must be able to fail)', () => {
    for (let r = 1; r <= 4; r++) {
      const data = createTensor('uint8', Array(r).fill(2));
      for (const axis of [r, -r - 1, r + 5, -r - 9]) {
        expectError(
          data,
          idx,
          { axis },
          'E_AXIS',
          `Gather: axis ${axis} out of range [${-r}, ${r - 1}] for rank ${r}`,
        );
      }
      // The edges themselves are fine.
      expect(() => gather(data, idx, { axis: r - 1 })).not.toThrow();
      expect(() => gather(data, idx, { axis: -r })).not.toThrow();
    }
  });

  it('a non-integer axis or batch_dims is refused', () => {
    expectError(
      data3,
      idx,
      { axis: 0.5 },
      'E_AXIS',
      'Gather: axis 0.5 out of range [-3, 2] for rank 3',
    );
    expectError(data3, idx, { axis: Number.NaN }, 'E_AXIS', /axis NaN out of range/);
    expectError(
      data3,
      idx,
      { axis: 1, batchDims: 0.5 },
      'E_BATCH_DIMS',
      /batch_dims 0.5 out of range/,
    );
  });

  it('batch_dims outside [-min(r,q), min(r,q)] or beyond the axis', () => {
    const indices = tensorFrom(
      'int32',
      [2, 3],
      iota(6, 0).map((v) => v % 3),
    );
    expectError(
      data3,
      indices,
      { axis: 2, batchDims: 3 },
      'E_BATCH_DIMS',
      'Gather: batch_dims 3 out of range [-2, 2] for data rank 3 and indices rank 2',
    );
    expectError(
      data3,
      indices,
      { axis: 2, batchDims: -3 },
      'E_BATCH_DIMS',
      'Gather: batch_dims -3 out of range [-2, 2] for data rank 3 and indices rank 2',
    );
    expectError(
      data3,
      indices,
      { axis: 1, batchDims: 2 },
      'E_BATCH_DIMS',
      'Gather: batch_dims 2 must not exceed axis 1',
    );
    // -1 normalises against the indices rank (2) to 1: fine for axis 1, too large for axis 0.
    expect(
      gather(data3, tensorFrom('int32', [2, 3], [0, 1, 2, 2, 1, 0]), { axis: 1, batchDims: -1 })
        .shape,
    ).toEqual([2, 3, 4]);
    expectError(
      data3,
      indices,
      { axis: 0, batchDims: -1 },
      'E_BATCH_DIMS',
      'Gather: batch_dims -1 must not exceed axis 0',
    );
  });

  it('batch dims of data and indices must match exactly', () => {
    const indices = tensorFrom('int32', [3, 1], [0, 0, 0]);
    expectError(
      data3,
      indices,
      { axis: 1, batchDims: 1 },
      'E_SHAPE',
      'Gather: batch dims differ: data [2,3,4] vs indices [3,1] at dim 0 (batch_dims=1)',
    );
    expectError(
      data3,
      tensorFrom('int32', [2, 2], [0, 0, 0, 0]),
      { axis: 2, batchDims: 2 },
      'E_SHAPE',
      'Gather: batch dims differ: data [2,3,4] vs indices [2,2] at dim 1 (batch_dims=2)',
    );
  });

  it('float, bool and string index dtypes are refused with E_DTYPE', () => {
    const floats: Array<[Dtype, number]> = [
      ['float32', 4],
      ['float64', 8],
      ['float16', 2],
      ['bfloat16', 2],
      ['bool', 1],
      ['S4', 4],
      ['complex64', 8],
    ];
    for (const [dtype, size] of floats) {
      const indices = createTensor(dtype, [1], new Uint8Array(size));
      expectError(
        data3,
        indices,
        {},
        'E_DTYPE',
        `Gather: indices must have an integer dtype, got ${dtype}`,
      );
    }
  });

  it('rank-0 data is refused', () => {
    expectError(
      tensorFrom('int32', [], [5]),
      tensorFrom('int32', [], [0]),
      {},
      'E_SHAPE',
      'Gather: data must have rank >= 1, got a scalar',
    );
  });

  it('names the value, its position and the valid range', () => {
    const data = tensorFrom('int32', [2, 5], iota(10));
    const indices = tensorFrom('int32', [2, 2], [0, 1, 7, 2]);
    expectError(
      data,
      indices,
      { axis: 1 },
      'E_INDEX_RANGE',
      'Gather: index 7 out of range [-5, 4] at indices[1,0] (axis=1)',
    );
    expectError(
      data,
      tensorFrom('int8', [3], [0, -6, 9]),
      { axis: -1 },
      'E_INDEX_RANGE',
      'Gather: index -6 out of range [-5, 4] at indices[1] (axis=1)',
    );
    expectError(
      data,
      tensorFrom('int16', [], [2]),
      { axis: 0 },
      'E_INDEX_RANGE',
      'Gather: index 2 out of range [-2, 1] at indices[] (axis=0)',
    );
  });

  it('64-bit indices are compared as 64-bit values: nothing aliases, nothing wraps', () => {
    const data = tensorFrom('int32', [3], [10, 20, 30]);
    const bad: Array<[Dtype, bigint]> = [
      ['int64', 2n ** 32n + 1n],
      ['int64', 2n ** 32n],
      ['int64', -(2n ** 32n) + 1n],
      ['int64', -(2n ** 32n) - 1n],
      ['int64', 2n ** 53n + 1n],
      ['int64', -(2n ** 63n)],
      ['int64', 2n ** 63n - 1n],
      ['uint64', 2n ** 64n - 1n],
      ['uint64', 2n ** 63n],
      ['uint64', 2n ** 32n + 2n],
      ['uint32', 2n ** 32n - 1n],
      ['uint16', 65535n],
      ['uint8', 255n],
    ];
    for (const [dtype, value] of bad) {
      const indices = tensorFrom(
        dtype,
        [2],
        [1n, value].map((v) => (dtype.includes('64') ? v : Number(v))),
      );
      expectError(
        data,
        indices,
        {},
        'E_INDEX_RANGE',
        `Gather: index ${value} out of range [-3, 2] at indices[1] (axis=0)`,
      );
      const zeroed = gather(data, indices, { oob: 'zero' });
      expect(tensorValues(zeroed)).toEqual([20, 0]);
    }
  });

  it('index checks happen even when the output is empty', () => {
    // numpy's take skips the check when the outer dims are 0; out of range is an error here regardless.
    expectError(
      createTensor('float32', [0, 3]),
      tensorFrom('int32', [1], [5]),
      { axis: 1 },
      'E_INDEX_RANGE',
      'Gather: index 5 out of range [-3, 2] at indices[0] (axis=1)',
    );
    expectError(
      createTensor('float32', [2, 0]),
      tensorFrom('int32', [1], [0]),
      { axis: 1 },
      'E_INDEX_RANGE',
      'Gather: index 0 out of range [0, -1] at indices[0] (axis=1)',
    );
  });
});

describe('unaligned inputs and plans', () => {
  const dtypes: Array<[Dtype, number[]]> = [
    ['float64', [4, 3]],
    ['int32', [5, 3]],
    ['int16', [3, 3, 2]],
    ['uint8', [4, 300]],
    ['complex128', [3, 3]],
    ['S3', [4, 3]],
  ];
  const indexCases: Array<[Dtype, Array<number | bigint>]> = [
    ['int64', [-1n, 0n, 2n, -2n]],
    ['uint64', [1n, 0n, 2n, 2n]],
    ['int32', [2, -3, 0, 1]],
    ['int16', [-1, 1, 0, 2]],
    ['uint16', [2, 1, 0, 0]],
  ];

  it('data and indices views at odd byteOffsets give the aligned result', () => {
    for (const [dtype, shape] of dtypes) {
      const data = createTensor(dtype, shape);
      data.data.forEach((_, i, a) => {
        a[i] = (i * 89 + 3) & 0xff;
      });
      for (const [indexDtype, values] of indexCases) {
        const indices = tensorFrom(indexDtype, [2, 2], values);
        for (const axis of [0, 1]) {
          const expected = gather(data, indices, { axis });
          for (const [dOff, iOff] of [
            [1, 3],
            [3, 1],
            [2, 5],
            [5, 2],
            [7, 7],
          ] as const) {
            const out = gather(tensorAt(data, dOff), tensorAt(indices, iOff), { axis });
            expect(out.shape).toEqual(expected.shape);
            expect(out.data, `${dtype} ${indexDtype} axis=${axis} @${dOff},${iOff}`).toEqual(
              expected.data,
            );
          }
        }
      }
    }
  });

  it('runGatherPlan writes exactly the destination view, wherever it sits', () => {
    const data = tensorFrom('int32', [3, 4], iota(12));
    const indices = tensorFrom('int64', [2], [2, 0]);
    const expected = gather(data, indices, { axis: 1 });
    const plan = planGather(data, indices, { axis: 1 });
    for (const offset of [0, 1, 2, 3, 4]) {
      const dst = placeAt(new Uint8Array(expected.data.byteLength), offset);
      runGatherPlan(plan, placeAt(data.data, (offset + 1) % 4), dst);
      expect(dst).toEqual(expected.data);
      const whole = new Uint8Array(dst.buffer);
      expect(whole.subarray(0, offset).every((b) => b === 0xa5)).toBe(true);
      expect(whole.subarray(offset + dst.byteLength).every((b) => b === 0xa5)).toBe(true);
    }
  });

  it('planGather needs only dtype and shape of data', () => {
    const plan = planGather(
      { dtype: 'complex64', shape: [2, 3, 5] },
      tensorFrom('int32', [4], [0, 1, 2, -1]),
      { axis: 1 },
    );
    expect(plan.outShape).toEqual([2, 4, 5]);
    expect([plan.batch, plan.outer, plan.axisSize, plan.perBatch, plan.blockBytes]).toEqual([
      1, 2, 3, 4, 40,
    ]);
    expect(Array.from(plan.positions)).toEqual([0, 1, 2, 2]);
  });
});

describe('gather: the out option', () => {
  const data = tensorFrom('int32', [3, 2], [1, 2, 3, 4, 5, 6]);

  it('writes into out and returns it, zero-filling out-of-range slices of a dirty out', () => {
    const out = createTensor('int32', [2, 2]);
    out.data.fill(0xff);
    expect(gather(data, tensorFrom('int64', [2], [2, 0]), { out })).toBe(out);
    expect(tensorValues(out)).toEqual([5, 6, 1, 2]);
    out.data.fill(0xff);
    gather(data, tensorFrom('int64', [2], [9, -1]), { oob: 'zero', out });
    expect(tensorValues(out)).toEqual([0, 0, 5, 6]);
  });

  it('refuses an out of another shape, or one inside the data', () => {
    const idx = tensorFrom('int64', [2], [2, 0]);
    expect(() => gather(data, idx, { out: createTensor('int32', [4]) })).toThrow(
      'Gather: out must be int32 [2,2], got int32 [4]',
    );
    const alias = createTensor('int32', [2, 2], data.data.subarray(0, 16));
    expect(() => gather(data, idx, { out: alias })).toThrow(
      'Gather: out must not share bytes with an input',
    );
  });
});
