import {
  createTensor,
  type Dtype,
  dtypeSize,
  type ErrorCode,
  type Tensor,
  TensorOpsError,
  tensorFrom,
  tensorValues,
} from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { referenceGatherTree } from '../../test/reference.js';
import { gatherTree } from './index.js';

const i32 = (shape: number[], values: number[]): Tensor => tensorFrom('int32', shape, values);

function expectError(fn: () => unknown, code: ErrorCode, message?: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(TensorOpsError);
  const err = caught as TensorOpsError;
  expect(err.code).toBe(code);
  expect(err.message.startsWith('GatherTree: ')).toBe(true);
  if (message !== undefined) expect(err.message).toBe(message);
}

// Case A, by hand. T=3, B=1, K=2, no end token met (end 0).
//   step   t0 [1,2]  t1 [3,4]  t2 [5,6]
//   parent t0 [0,0]  t1 [1,0]  t2 [1,0]
// beam 0: t2 step[2][0]=5, parent[2][0]=1 -> t1 step[1][1]=4, parent[1][1]=0 -> t0 step[0][0]=1
// beam 1: t2 step[2][1]=6, parent[2][1]=0 -> t1 step[1][0]=3, parent[1][0]=1 -> t0 step[0][1]=2
// time-major output: t0 [1,2]  t1 [4,3]  t2 [5,6]
const A = {
  step: [1, 2, 3, 4, 5, 6],
  parent: [0, 0, 1, 0, 1, 0],
  out: [1, 2, 4, 3, 5, 6],
};

// Case B, by hand. T=4, B=2, K=2, end token 9, max_seq_len [4, 2].
//   step   t0 b0[1,2] b1[3,4] | t1 b0[9,5] b1[6,7] | t2 b0[8,9] b1[9,9] | t3 b0[7,6] b1[1,1]
//   parent t0 b0[7,-1] b1[7,7] (never read) | t1 b0[0,0] b1[1,1]
//          t2 b0[1,0] b1[99,99] (past b1's length) | t3 b0[0,1] b1[99,99]
// b0 k0: t3 7, p=0 -> t2 step[2][0][0]=8, p=1 -> t1 step[1][0][1]=5, p=0 -> t0 1  => 1 5 8 7
// b0 k1: t3 6, p=1 -> t2 step[2][0][1]=9, p=0 -> t1 step[1][0][0]=9, p=0 -> t0 1  => 1 9 9 6,
//        first end at t1, so t2 and t3 become 9 (t2 was 9 anyway, t3 6 -> 9)     => 1 9 9 9
// b1 (length 2) k0: t1 6, p=1 -> t0 step[0][1][1]=4 => 4 6, then end: 4 6 9 9
// b1 k1: t1 7, p=1 -> t0 4 => 4 7 9 9
const B = {
  step: [1, 2, 3, 4, 9, 5, 6, 7, 8, 9, 9, 9, 7, 6, 1, 1],
  parent: [7, -1, 7, 7, 0, 0, 1, 1, 1, 0, 99, 99, 0, 1, 99, 99],
  maxSeqLen: [4, 2],
  out: [1, 1, 4, 4, 5, 9, 6, 7, 8, 9, 9, 9, 7, 9, 9, 9],
};

describe('gatherTree: hand-checked cases', () => {
  it('back-tracks parents (case A)', () => {
    const out = gatherTree(i32([3, 1, 2], A.step), i32([3, 1, 2], A.parent), i32([1], [3]), 0);
    expect(out.dtype).toBe('int32');
    expect(out.shape).toEqual([3, 1, 2]);
    expect(tensorValues(out)).toEqual(A.out);
  });

  it('cuts at the first end token and at max_seq_len, never reading parent_ids[0] (case B)', () => {
    const out = gatherTree(
      i32([4, 2, 2], B.step),
      i32([4, 2, 2], B.parent),
      i32([2], B.maxSeqLen),
      9,
    );
    expect(tensorValues(out)).toEqual(B.out);
  });

  it('matches the literal reference on the hand cases', () => {
    const ref = referenceGatherTree(
      i32([4, 2, 2], B.step),
      i32([4, 2, 2], B.parent),
      i32([2], B.maxSeqLen),
      9,
    );
    expect(ref).toEqual({ ok: true, values: B.out });
  });

  it('a length-1 beam is its own step id; nothing is followed', () => {
    // T=2, B=1, K=2, max_seq_len 1: out t0 = step t0, t1 = end; every parent is garbage.
    const out = gatherTree(
      i32([2, 1, 2], [4, 5, 6, 7]),
      i32([2, 1, 2], [-5, 9, 9, -5]),
      i32([1], [1]),
      0,
    );
    expect(tensorValues(out)).toEqual([4, 5, 0, 0]);
  });

  it('an end token at t0 makes the whole beam end token', () => {
    // T=3, K=1: step [2, 5, 6], parents 0 -> gathered [2, 5, 6] -> [2, 2, 2]
    const out = gatherTree(i32([3, 1, 1], [2, 5, 6]), i32([3, 1, 1], [0, 0, 0]), i32([1], [3]), 2);
    expect(tensorValues(out)).toEqual([2, 2, 2]);
  });

  it('the end token is found on the gathered path, not in the raw step ids', () => {
    // T=2, K=2, end 8. step t0 [8, 1], t1 [3, 4]; parents t1 [1, 1]: both beams come from beam 1
    // at t0 (id 1), so neither ends although step_ids[0,0,0] is 8. out t0 [1,1], t1 [3,4].
    const out = gatherTree(
      i32([2, 1, 2], [8, 1, 3, 4]),
      i32([2, 1, 2], [0, 0, 1, 1]),
      i32([1], [2]),
      8,
    );
    expect(tensorValues(out)).toEqual([1, 1, 3, 4]);
  });

  it('the spec example shapes [100, 1, 10] -> [100, 1, 10]', () => {
    const T = 100;
    const K = 10;
    const step = Array.from({ length: T * K }, (_, i) => (i * 7919) % 50);
    const parent = Array.from({ length: T * K }, (_, i) => (i * 31) % K);
    for (const len of [100, 37, 150]) {
      const args = [i32([T, 1, K], step), i32([T, 1, K], parent), i32([1], [len])] as const;
      const out = gatherTree(...args, 3);
      expect(out.shape).toEqual([100, 1, 10]);
      const ref = referenceGatherTree(...args, 3);
      expect(ref.ok).toBe(true);
      if (ref.ok) expect(tensorValues(out)).toEqual(ref.values);
    }
  });
});

describe('gatherTree: max_seq_len', () => {
  const step = i32([2, 4, 1], [1, 2, 3, 4, 5, 6, 7, 8]);
  const parent = i32([2, 4, 1], [0, 0, 0, 0, 0, 0, 0, 0]);
  // Per batch entry b the beam is [step[0][b], step[1][b]] cut to the clamped length, end 0.
  it('is clamped to [0, MAX_TIME]; 0 or negative leaves the beam all end token', () => {
    const out = gatherTree(step, parent, i32([4], [-3, 0, 1, 100]), 0);
    expect(tensorValues(out)).toEqual([0, 0, 3, 4, 0, 0, 0, 8]);
  });

  it('compares 64-bit lengths whole (2^32 + 1 is not 1, -2^40 is negative)', () => {
    const lens = tensorFrom('int64', [4], [-(2n ** 40n), 2n ** 32n + 1n, 1n, 2n ** 62n]);
    expect(tensorValues(gatherTree(step, parent, lens, 0))).toEqual([0, 2, 3, 4, 0, 6, 0, 8]);
    const ulens = tensorFrom('uint64', [4], [2n ** 64n - 1n, 0n, 2n ** 32n, 1n]);
    expect(tensorValues(gatherTree(step, parent, ulens, 0))).toEqual([1, 0, 3, 4, 5, 0, 7, 0]);
  });

  it('accepts every integer dtype and integral floats', () => {
    for (const dtype of [
      'int8',
      'uint8',
      'int16',
      'uint16',
      'uint32',
      'float32',
      'float64',
    ] as const) {
      const out = gatherTree(step, parent, tensorFrom(dtype, [4], [0, 2, 1, 2]), 0);
      expect(tensorValues(out), dtype).toEqual([0, 2, 3, 4, 0, 6, 0, 8]);
    }
    const floats = tensorFrom('float64', [4], [-1e300, 1e300, -0, 2]);
    expect(tensorValues(gatherTree(step, parent, floats, 0))).toEqual([0, 2, 0, 4, 0, 6, 0, 8]);
  });

  it('non-integral float lengths are E_VALUE', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectError(
        () => gatherTree(step, parent, tensorFrom('float32', [4], [1, 1, bad, 1]), 0),
        'E_VALUE',
        `GatherTree: max_seq_len value ${bad} at max_seq_len[2] is not an integer`,
      );
    }
  });
});

describe('gatherTree: parent validation', () => {
  const step = i32([3, 1, 2], A.step);
  const lens = i32([1], [3]);

  it('a followed parent equal to BEAM is out of range (TF lets it through)', () => {
    expectError(
      () => gatherTree(step, i32([3, 1, 2], [0, 0, 1, 0, 1, 2]), lens, 0),
      'E_INDEX_RANGE',
      'GatherTree: parent 2 out of range [0, 1] at parent_ids[2,0,1] (tracing beam 1 of batch 0)',
    );
  });

  it('a negative followed parent is out of range (no negative indexing)', () => {
    // beam 0 at t2 follows parent[2][0] = 1, then parent[1][1] = -1 is followed to t0.
    expectError(
      () => gatherTree(step, i32([3, 1, 2], [0, 0, 0, -1, 1, 0]), lens, 0),
      'E_INDEX_RANGE',
      'GatherTree: parent -1 out of range [0, 1] at parent_ids[1,0,1] (tracing beam 0 of batch 0)',
    );
  });

  it('parents that are never followed may hold anything', () => {
    // parent[1][1] = 50 is never followed: parent t2 points both beams to beam 0.
    const out = gatherTree(step, i32([3, 1, 2], [-9, 99, 0, 50, 0, 0]), lens, 0);
    // both beams: t2 own id, t1 step[1][0]=3, t0 parent[1][0]=0 -> step[0][0]=1
    expect(tensorValues(out)).toEqual([1, 1, 3, 3, 5, 6]);
  });

  it('in-range parents whose bits OR past BEAM are fine (the four-beam fast check)', () => {
    // T=2, K=5, parents t1 [4,1,2,3,0] (4|1|2|3 = 7 >= 5). Beam k: t1 = 20+k, t0 = 10+parent.
    const out = gatherTree(
      i32([2, 1, 5], [10, 11, 12, 13, 14, 20, 21, 22, 23, 24]),
      i32([2, 1, 5], [9, 9, 9, 9, 9, 4, 1, 2, 3, 0]),
      i32([1], [2]),
      99,
    );
    expect(tensorValues(out)).toEqual([14, 11, 12, 13, 10, 20, 21, 22, 23, 24]);
  });

  it('names the beam being traced inside a group of four', () => {
    // T=3, K=4: t2 parents [3,2,1,0] send beam k to beam 3-k; at t1 beam 0 reads parent[1][3]=3
    // (fine) and beam 1 reads parent[1][2] = -7.
    expectError(
      () =>
        gatherTree(
          i32([3, 1, 4], new Array(12).fill(5)),
          i32([3, 1, 4], [0, 0, 0, 0, 0, 1, -7, 3, 3, 2, 1, 0]),
          i32([1], [3]),
          0,
        ),
      'E_INDEX_RANGE',
      'GatherTree: parent -7 out of range [0, 3] at parent_ids[1,0,2] (tracing beam 1 of batch 0)',
    );
  });

  it('reports the exact value of a 64-bit parent', () => {
    const parent = tensorFrom('int64', [3, 1, 2], [0n, 0n, 1n, 0n, 2n ** 32n + 1n, 0n]);
    expectError(
      () => gatherTree(step, parent, lens, 0),
      'E_INDEX_RANGE',
      'GatherTree: parent 4294967297 out of range [0, 1] at parent_ids[2,0,0] (tracing beam 0 of batch 0)',
    );
    const uparent = tensorFrom('uint32', [3, 1, 2], [0, 0, 1, 0, 0, 4294967295]);
    expectError(
      () => gatherTree(step, uparent, lens, 0),
      'E_INDEX_RANGE',
      'GatherTree: parent 4294967295 out of range [0, 1] at parent_ids[2,0,1] (tracing beam 1 of batch 0)',
    );
  });

  it('accepts parents of any integer dtype or integral floats, independent of the step dtype', () => {
    for (const dtype of [
      'int8',
      'uint8',
      'int16',
      'uint16',
      'uint32',
      'int64',
      'uint64',
      'float32',
      'float64',
    ] as const) {
      const parent = tensorFrom(dtype, [3, 1, 2], A.parent);
      expect(tensorValues(gatherTree(step, parent, lens, 0)), dtype).toEqual(A.out);
    }
  });

  it('a followed non-integral float parent is E_VALUE; an unfollowed one is ignored', () => {
    expectError(
      () => gatherTree(step, tensorFrom('float32', [3, 1, 2], [0, 0, 1, 0, 1, 0.5]), lens, 0),
      'E_VALUE',
      'GatherTree: parent_ids value 0.5 at parent_ids[2,0,1] (tracing beam 1 of batch 0) is not an integer',
    );
    expectError(
      () =>
        gatherTree(step, tensorFrom('float64', [3, 1, 2], [0, 0, Number.NaN, 0, 1, 0]), lens, 0),
      'E_VALUE',
      'GatherTree: parent_ids value NaN at parent_ids[1,0,0] (tracing beam 1 of batch 0) is not an integer',
    );
    // t1 [1, 0.25], t2 [0, 0]: both beams follow beam 0 at t2, then parent[1][0] = 1 to t0, so
    // out t0 [2,2], t1 [3,3], t2 [5,6]; 0.25 and all of parent_ids[0] are never followed.
    const fine = tensorFrom('float64', [3, 1, 2], [0.5, Number.NaN, 1, 0.25, 0, 0]);
    expect(tensorValues(gatherTree(step, fine, lens, 0))).toEqual([2, 2, 3, 3, 5, 6]);
  });
});

describe('gatherTree: step dtypes and exact values', () => {
  it('copies every integer dtype exactly, extremes included', () => {
    const cases: Array<[Dtype, Array<number | bigint>, number | bigint]> = [
      ['int8', [-128, 127, 1, 2, 3, -1], -1],
      ['uint8', [255, 0, 1, 2, 3, 4], 4],
      ['int16', [-32768, 32767, 1, 2, 3, 4], 4],
      ['uint16', [65535, 0, 1, 2, 3, 4], 4],
      ['int32', [-2147483648, 2147483647, 1, 2, 3, 4], 4],
      ['uint32', [4294967295, 0, 1, 2, 3, 4], 4],
      ['int64', [-(2n ** 63n), 2n ** 63n - 1n, 1n, 2n, 3n, 4n], 4n],
      ['uint64', [2n ** 64n - 1n, 0n, 1n, 2n, 3n, 4n], 4n],
    ];
    for (const [dtype, values, end] of cases) {
      // T=3, K=2 with case A's parents: out = [v0, v1, v3, v2, v4, v5], then the end cut.
      const out = gatherTree(
        tensorFrom(dtype, [3, 1, 2], values),
        i32([3, 1, 2], A.parent),
        i32([1], [3]),
        end,
      );
      expect(out.dtype).toBe(dtype);
      const v = values;
      const expected = [v[0], v[1], v[3], v[2], v[4], v[5]];
      // The last column is an end token (values[5] for int8, the others end at 4 = values[5]).
      expect(tensorValues(out), dtype).toEqual(expected);
    }
  });

  it('int64 ids beyond 2^53 are copied bit-exactly and compared whole', () => {
    const big = 2n ** 62n + 1n;
    const step = tensorFrom('int64', [2, 1, 1], [big, 2n ** 32n + 2n]);
    const parent = i32([2, 1, 1], [0, 0]);
    // end 2 does not alias 2^32 + 2
    expect(tensorValues(gatherTree(step, parent, i32([1], [2]), 2))).toEqual([big, 2n ** 32n + 2n]);
    // end = big (bigint): found at t0, so t1 becomes big
    expect(tensorValues(gatherTree(step, parent, i32([1], [2]), big))).toEqual([big, big]);
    // 2^62 as a number is exact and fits int64; it is not 2^62 + 1
    expect(tensorValues(gatherTree(step, parent, i32([1], [2]), 2 ** 62))).toEqual([
      big,
      2n ** 32n + 2n,
    ]);
  });

  it('float step ids: values survive bit for bit, -0 matches an end token 0', () => {
    // T=3, K=1, float32: [-0, 5, 7] with end 0: -0 is the end token, so [-0, 0, 0]; the first
    // keeps its sign bit (bits 0x80000000), the fill is +0.
    const step = tensorFrom('float32', [3, 1, 1], [-0, 5, 7]);
    const parent = i32([3, 1, 1], [0, 0, 0]);
    const out = gatherTree(step, parent, i32([1], [3]), 0);
    expect(Array.from(out.data)).toEqual([0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]);
    const f64 = gatherTree(
      tensorFrom('float64', [3, 1, 1], [2 ** 60, -(2 ** 53), 3]),
      parent,
      i32([1], [3]),
      3,
    );
    expect(tensorValues(f64)).toEqual([2 ** 60, -(2 ** 53), 3]);
    expect(f64.dtype).toBe('float64');
  });

  it('a non-integral float step id that reaches the output is E_VALUE, naming its source', () => {
    // case A's tree, float32; beam 1's t1 comes from step[1][0]
    const values = [1, 2, 3.5, 4, 5, 6];
    expectError(
      () =>
        gatherTree(
          tensorFrom('float32', [3, 1, 2], values),
          i32([3, 1, 2], A.parent),
          i32([1], [3]),
          0,
        ),
      'E_VALUE',
      'GatherTree: step_ids value 3.5 at step_ids[1,0,0] is not an integer (float step ids must hold integral values)',
    );
  });

  it('non-integral step ids that never reach the output are ignored', () => {
    // After the end token (t1 = 9 on beam 0's path), past max_seq_len, or off every path.
    // T=3, K=2, parents all 0 at t1/t2: both beams read step[t][0] below t2.
    const step = tensorFrom('float64', [3, 1, 2], [1, Number.NaN, 9, 0.5, Number.NaN, 4]);
    const parent = i32([3, 1, 2], [0, 0, 0, 0, 0, 0]);
    // beam 0: [1, 9, NaN] -> [1, 9, 9]; beam 1: [1, 9, 4] -> [1, 9, 9]
    expect(tensorValues(gatherTree(step, parent, i32([1], [3]), 9))).toEqual([1, 1, 9, 9, 9, 9]);
    const inf = tensorFrom('float32', [2, 1, 1], [3, Number.POSITIVE_INFINITY]);
    expect(tensorValues(gatherTree(inf, i32([2, 1, 1], [0, 0]), i32([1], [1]), 9))).toEqual([3, 9]);
  });

  it('does not alias or modify its inputs', () => {
    const step = i32([3, 1, 2], A.step);
    const before = Array.from(step.data);
    const out = gatherTree(step, i32([3, 1, 2], A.parent), i32([1], [3]), 0);
    out.data.fill(0);
    expect(Array.from(step.data)).toEqual(before);
  });

  it('reads unaligned input bytes', () => {
    const shifted = (t: Tensor): Tensor => {
      const buf = new Uint8Array(t.data.byteLength + 1);
      buf.set(t.data, 1);
      return createTensor(t.dtype, t.shape, buf.subarray(1));
    };
    for (const dtype of ['int16', 'int32', 'int64', 'float32', 'float64'] as const) {
      const step = shifted(
        tensorFrom(dtype, [3, 1, 2], dtype === 'int64' ? A.step.map(BigInt) : A.step),
      );
      const parent = shifted(i32([3, 1, 2], A.parent));
      const lens = shifted(tensorFrom('int64', [1], [3n]));
      const out = gatherTree(step, parent, lens, 0);
      expect(tensorValues(out).map(Number), dtype).toEqual(A.out);
    }
  });

  it('writes an unaligned `out` in place', () => {
    for (const dtype of ['int16', 'int32', 'int64', 'float32', 'float64'] as const) {
      const buf = new Uint8Array(6 * dtypeSize(dtype) + 1).fill(0xee);
      const out = createTensor(dtype, [3, 1, 2], buf.subarray(1));
      const step = tensorFrom(dtype, [3, 1, 2], dtype === 'int64' ? A.step.map(BigInt) : A.step);
      expect(gatherTree(step, i32([3, 1, 2], A.parent), i32([1], [3]), 0, { out })).toBe(out);
      expect(tensorValues(out).map(Number), dtype).toEqual(A.out);
      expect(buf[0], dtype).toBe(0xee);
    }
  });

  it('empty dimensions give empty outputs of the right shape', () => {
    for (const shape of [
      [0, 2, 3],
      [4, 0, 3],
      [4, 2, 0],
      [0, 0, 0],
    ] as const) {
      const [T, B, K] = shape;
      const n = T * B * K;
      const out = gatherTree(
        tensorFrom('float32', [T, B, K], new Array(n).fill(1)),
        i32([T, B, K], new Array(n).fill(0)),
        i32([B], new Array(B).fill(5)),
        0,
      );
      expect(out.shape).toEqual([T, B, K]);
      expect(out.dtype).toBe('float32');
      expect(out.data.byteLength).toBe(0);
    }
  });
});

describe('gatherTree: the out option', () => {
  const step = i32([3, 1, 2], A.step);
  const parent = i32([3, 1, 2], A.parent);
  const lens = i32([1], [3]);

  it('writes into a reused, dirty out and returns it', () => {
    const fresh = gatherTree(step, parent, lens, 0);
    const out = createTensor('int32', [3, 1, 2], new Uint8Array(24).fill(0xff));
    expect(gatherTree(step, parent, lens, 0, { out })).toBe(out);
    expect(Array.from(out.data)).toEqual(Array.from(fresh.data));
  });

  it('refuses an out of the wrong dtype, shape or size, or sharing bytes with an input', () => {
    const shared = new Uint8Array(48);
    const stepIn = createTensor('int32', [3, 1, 2], shared.subarray(0, 24));
    stepIn.data.set(step.data);
    const cases: Array<[Tensor, Tensor, string]> = [
      [step, createTensor('int64', [3, 1, 2]), 'out must be int32 [3,1,2], got int64 [3,1,2]'],
      [step, createTensor('int32', [6]), 'out must be int32 [3,1,2], got int32 [6]'],
      [
        step,
        { dtype: 'int32', shape: [3, 1, 2], data: new Uint8Array(20) },
        'out of dtype int32 and shape [3,1,2] needs 24 bytes, got 20',
      ],
      [
        stepIn,
        createTensor('int32', [3, 1, 2], shared.subarray(20, 44)),
        'out must not share bytes with an input',
      ],
      [step, parent, 'out must not share bytes with an input'],
    ];
    for (const [s, out, message] of cases) {
      expectError(
        () => gatherTree(s, parent, lens, 0, { out }),
        'E_SHAPE',
        `GatherTree: ${message}`,
      );
    }
  });
});

describe('gatherTree: end token', () => {
  const step = i32([2, 1, 1], [7, 3]);
  const parent = i32([2, 1, 1], [0, 0]);
  const lens = i32([1], [2]);

  it('takes a number, a bigint or a scalar tensor of any numeric dtype', () => {
    for (const end of [
      7,
      7n,
      i32([], [7]),
      tensorFrom('int64', [], [7n]),
      tensorFrom('float32', [], [7]),
    ]) {
      expect(tensorValues(gatherTree(step, parent, lens, end))).toEqual([7, 7]);
    }
    const f16 = createTensor('float16', [], new Uint8Array([0x00, 0x47])); // 7.0
    expect(tensorValues(gatherTree(step, parent, lens, f16))).toEqual([7, 7]);
  });

  it('an end token the step dtype cannot hold is E_VALUE', () => {
    expectError(
      () => gatherTree(step, parent, lens, 2.5),
      'E_VALUE',
      'GatherTree: end_token 2.5 does not fit step_ids dtype int32 (integers in [-2147483648, 2147483647])',
    );
    expectError(() => gatherTree(step, parent, lens, 2 ** 40), 'E_VALUE');
    expectError(() => gatherTree(step, parent, lens, Number.NaN), 'E_VALUE');
    expectError(() => gatherTree(step, parent, lens, tensorFrom('float64', [], [0.5])), 'E_VALUE');
    const u8 = tensorFrom('uint8', [2, 1, 1], [7, 3]);
    expectError(() => gatherTree(u8, parent, lens, -1), 'E_VALUE');
    expectError(() => gatherTree(u8, parent, lens, 256), 'E_VALUE');
    const i64 = tensorFrom('int64', [2, 1, 1], [7n, 3n]);
    expectError(() => gatherTree(i64, parent, lens, 2n ** 63n), 'E_VALUE');
    expect(tensorValues(gatherTree(i64, parent, lens, 2n ** 63n - 1n))).toEqual([7n, 3n]);
    const f32 = tensorFrom('float32', [2, 1, 1], [7, 3]);
    expectError(
      () => gatherTree(f32, parent, lens, 2 ** 24 + 1),
      'E_VALUE',
      'GatherTree: end_token 16777217 does not fit step_ids dtype float32 (integral values float32 holds exactly)',
    );
    expectError(() => gatherTree(f32, parent, lens, 2n ** 64n + 1n), 'E_VALUE');
    expect(tensorValues(gatherTree(f32, parent, lens, 2n ** 64n))).toEqual([7, 3]);
    expect(tensorValues(gatherTree(f32, parent, lens, 2 ** 24))).toEqual([7, 3]);
    const f64 = tensorFrom('float64', [2, 1, 1], [7, 3]);
    expectError(() => gatherTree(f64, parent, lens, 2n ** 53n + 1n), 'E_VALUE');
    expect(tensorValues(gatherTree(f64, parent, lens, 2n ** 53n + 2n))).toEqual([7, 3]);
  });

  it('a non-scalar or non-numeric end tensor is refused', () => {
    expectError(
      () => gatherTree(step, parent, lens, i32([1], [7])),
      'E_SHAPE',
      'GatherTree: end_token must be a scalar (shape []), got shape [1]',
    );
    expectError(() => gatherTree(step, parent, lens, tensorFrom('bool', [], [true])), 'E_DTYPE');
  });
});

describe('gatherTree: shapes and dtypes', () => {
  const step = i32([2, 1, 2], [1, 2, 3, 4]);
  const parent = i32([2, 1, 2], [0, 0, 0, 0]);
  const lens = i32([1], [2]);

  it('rank and shape mismatches are E_SHAPE', () => {
    expectError(
      () => gatherTree(i32([2, 2], [1, 2, 3, 4]), parent, lens, 0),
      'E_SHAPE',
      'GatherTree: step_ids must have rank 3 [MAX_TIME, BATCH, BEAM], got shape [2,2]',
    );
    expectError(
      () => gatherTree(step, i32([2, 2, 1], [0, 0, 0, 0]), lens, 0),
      'E_SHAPE',
      'GatherTree: parent_ids shape [2,2,1] must equal step_ids shape [2,1,2]',
    );
    expectError(
      () => gatherTree(step, parent, i32([2], [2, 2]), 0),
      'E_SHAPE',
      'GatherTree: max_seq_len shape [2] must be [BATCH] = [1]',
    );
    expectError(() => gatherTree(step, parent, i32([], [2]), 0), 'E_SHAPE');
    expectError(
      () =>
        gatherTree({ dtype: 'int32', shape: [2, 1, 2], data: new Uint8Array(12) }, parent, lens, 0),
      'E_SHAPE',
      'GatherTree: step_ids of dtype int32 and shape [2,1,2] needs 16 bytes, got 12',
    );
    expectError(() => gatherTree(step, parent, i32([1, 1], [2]), 0), 'E_SHAPE');
  });

  it('unsupported dtypes are E_DTYPE', () => {
    expectError(
      () => gatherTree(tensorFrom('bool', [2, 1, 2], [1, 0, 1, 0]), parent, lens, 0),
      'E_DTYPE',
      'GatherTree: step_ids dtype bool not supported; expected one of int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64',
    );
    expectError(
      () => gatherTree(tensorFrom('float16', [2, 1, 2], [1, 2, 3, 4]), parent, lens, 0),
      'E_DTYPE',
    );
    expectError(
      () => gatherTree(step, tensorFrom('bool', [2, 1, 2], [0, 0, 0, 0]), lens, 0),
      'E_DTYPE',
      'GatherTree: parent_ids must have an integer dtype or integral float32/float64 values, got bool',
    );
    expectError(() => gatherTree(step, parent, tensorFrom('float16', [1], [2]), 0), 'E_DTYPE');
  });
});
