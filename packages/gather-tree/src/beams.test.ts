import { type Tensor, TensorOpsError, tensorFrom } from '@tensorops/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceGatherTree } from '../test/reference.js';
import {
  type BeamSequences,
  beamSequences,
  beamsToJson,
  decodeBeams,
  formatTokens,
} from './beams.js';
import { gatherTree } from './gather-tree/index.js';

const i32 = (shape: number[], values: number[]): Tensor => tensorFrom('int32', shape, values);

/** [T, B, K] -> [B, T, K], element by element. */
function toBatchMajor(t: Tensor): Tensor {
  const [T, B, K] = t.shape as [number, number, number];
  const size = t.data.byteLength / (T * B * K || 1);
  const out = new Uint8Array(t.data.byteLength);
  for (let tt = 0; tt < T; tt++)
    for (let b = 0; b < B; b++)
      for (let k = 0; k < K; k++) {
        const from = ((tt * B + b) * K + k) * size;
        out.set(t.data.subarray(from, from + size), ((b * T + tt) * K + k) * size);
      }
  return { dtype: t.dtype, shape: [B, T, K], data: out };
}

// gatherTree's case B output (see gather-tree.test.ts), end token 9, time-major [4, 2, 2]:
//   t0 b0[1,1] b1[4,4] | t1 b0[5,9] b1[6,7] | t2 b0[8,9] b1[9,9] | t3 b0[7,9] b1[9,9]
// b0k0 1 5 8 7 (no end: ran to MAX_TIME) · b0k1 1 | 9 · b1k0 4 6 | 9 · b1k1 4 7 | 9
const GATHERED = [1, 1, 4, 4, 5, 9, 6, 7, 8, 9, 9, 9, 7, 9, 9, 9];

const EXPECTED: BeamSequences = {
  dtype: 'int32',
  endToken: 9,
  maxTime: 4,
  batchSize: 2,
  beamWidth: 2,
  includeEnd: false,
  beams: [
    { batch: 0, beam: 0, tokens: [1, 5, 8, 7], length: 4, ended: false },
    { batch: 0, beam: 1, tokens: [1], length: 1, ended: true },
    { batch: 1, beam: 0, tokens: [4, 6], length: 2, ended: true },
    { batch: 1, beam: 1, tokens: [4, 7], length: 2, ended: true },
  ],
};

function expectError(fn: () => unknown, code: string, message?: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(TensorOpsError);
  expect((caught as TensorOpsError).code).toBe(code);
  if (message !== undefined) expect((caught as TensorOpsError).message).toBe(message);
}

describe('beamSequences', () => {
  it('cuts each beam at its first end token (time-major)', () => {
    expect(beamSequences(i32([4, 2, 2], GATHERED), 9)).toEqual(EXPECTED);
  });

  it('reads batch-major [B, T, K] ids the same way', () => {
    const batchMajor = toBatchMajor(i32([4, 2, 2], GATHERED));
    expect(batchMajor.shape).toEqual([2, 4, 2]);
    expect(beamSequences(batchMajor, 9, { layout: 'batch-major' })).toEqual(EXPECTED);
  });

  it('includeEnd keeps the closing end token', () => {
    const r = beamSequences(i32([4, 2, 2], GATHERED), 9, { includeEnd: true });
    expect(r.includeEnd).toBe(true);
    expect(r.beams.map((s) => [s.tokens, s.length, s.ended])).toEqual([
      [[1, 5, 8, 7], 4, false],
      [[1, 9], 2, true],
      [[4, 6, 9], 3, true],
      [[4, 7, 9], 3, true],
    ]);
  });

  it('only the first end token counts; later ids are not read', () => {
    // T=4, B=1, K=1: 3 9 0.5 NaN (float64) -> [3]; the non-integral ids after the end are ignored.
    const ids = tensorFrom('float64', [4, 1, 1], [3, 9, 0.5, Number.NaN]);
    expect(beamSequences(ids, 9).beams[0]?.tokens).toEqual([3]);
  });

  it('64-bit ids are numbers when safe and bigints beyond 2^53', () => {
    const big = 2n ** 60n + 3n;
    const ids = tensorFrom('int64', [4, 1, 1], [big, -(2n ** 53n), 2n ** 53n - 1n, 2n]);
    const r = beamSequences(ids, 2n);
    expect(r.endToken).toBe(2);
    expect(r.beams[0]?.tokens).toEqual([big, -(2n ** 53n), 2 ** 53 - 1]);
    const u = tensorFrom('uint64', [2, 1, 1], [2n ** 64n - 1n, 7n]);
    expect(beamSequences(u, 2n ** 64n - 1n).endToken).toBe(2n ** 64n - 1n);
    expect(beamSequences(u, 0).beams[0]?.tokens).toEqual([2n ** 64n - 1n, 7]);
    // 2^32 + 9 is not 9
    const alias = tensorFrom('int64', [2, 1, 1], [2n ** 32n + 9n, 9n]);
    expect(beamSequences(alias, 9).beams[0]?.tokens).toEqual([2 ** 32 + 9]);
  });

  it('float ids: -0 reads as 0 and matches an end token 0; non-integral ids before the end fail', () => {
    const ids = tensorFrom('float32', [3, 1, 2], [4, 5, -0, 6, 7, 0]);
    const r = beamSequences(ids, 0, { includeEnd: true });
    expect(r.beams.map((s) => s.tokens)).toEqual([
      [4, 0],
      [5, 6, 0],
    ]);
    expect(Object.is(r.beams[0]?.tokens[1], 0)).toBe(true);
    expectError(
      () => beamSequences(tensorFrom('float32', [2, 1, 1], [1, 2.5]), 0),
      'E_VALUE',
      'beamSequences: ids value 2.5 at ids[1,0,0] is not an integer (float ids must hold integral values)',
    );
  });

  it('every integer dtype', () => {
    for (const dtype of ['int8', 'uint8', 'int16', 'uint16', 'uint32'] as const) {
      const r = beamSequences(tensorFrom(dtype, [4, 2, 2], GATHERED), 9);
      expect(r.beams, dtype).toEqual(EXPECTED.beams);
      expect(r.dtype).toBe(dtype);
    }
  });

  it('empty dimensions', () => {
    expect(beamSequences(i32([0, 2, 1], []), 0).beams).toEqual([
      { batch: 0, beam: 0, tokens: [], length: 0, ended: false },
      { batch: 1, beam: 0, tokens: [], length: 0, ended: false },
    ]);
    expect(beamSequences(i32([3, 0, 2], []), 0).beams).toEqual([]);
    expect(beamSequences(i32([3, 2, 0], []), 0).beams).toEqual([]);
  });

  it('refuses bad input', () => {
    expectError(
      () => beamSequences(i32([2, 2], [1, 2, 3, 4]), 0),
      'E_SHAPE',
      'beamSequences: ids must have rank 3 [MAX_TIME, BATCH, BEAM] (time-major), got shape [2,2]',
    );
    expectError(
      () => beamSequences(i32([4], [1, 2, 3, 4]), 0, { layout: 'batch-major' }),
      'E_SHAPE',
      'beamSequences: ids must have rank 3 [BATCH, MAX_TIME, BEAM] (batch-major), got shape [4]',
    );
    expectError(() => beamSequences(tensorFrom('bool', [1, 1, 1], [1]), 0), 'E_DTYPE');
    expectError(
      () => beamSequences({ dtype: 'int64', shape: [1, 1, 2], data: new Uint8Array(8) }, 0),
      'E_SHAPE',
      'beamSequences: ids of dtype int64 and shape [1,1,2] needs 16 bytes, got 8',
    );
    expectError(
      () => beamSequences(i32([1, 1, 1], [1]), 2 ** 31),
      'E_VALUE',
      'beamSequences: end_token 2147483648 does not fit ids dtype int32 (integers in [-2147483648, 2147483647])',
    );
    expectError(
      () => beamSequences(i32([1, 1, 1], [1]), 0, { layout: 'beam-major' as 'time-major' }),
      'E_USAGE',
      "beamSequences: layout must be 'time-major' or 'batch-major', got 'beam-major'",
    );
  });
});

describe('decodeBeams', () => {
  it('gathers then splits (case B of gather-tree.test.ts)', () => {
    const step = i32([4, 2, 2], [1, 2, 3, 4, 9, 5, 6, 7, 8, 9, 9, 9, 7, 6, 1, 1]);
    const parent = i32([4, 2, 2], [7, -1, 7, 7, 0, 0, 1, 1, 1, 0, 99, 99, 0, 1, 99, 99]);
    expect(decodeBeams(step, parent, i32([2], [4, 2]), 9)).toEqual(EXPECTED);
    const withEnd = decodeBeams(step, parent, i32([2], [4, 2]), 9, { includeEnd: true });
    expect(withEnd.beams[1]?.tokens).toEqual([1, 9]);
  });

  it('passes gatherTree errors through', () => {
    expectError(
      () => decodeBeams(i32([2, 1, 1], [1, 2]), i32([2, 1, 1], [0, 1]), i32([1], [2]), 0),
      'E_INDEX_RANGE',
      'GatherTree: parent 1 out of range [0, 0] at parent_ids[1,0,0] (tracing beam 0 of batch 0)',
    );
  });

  it('agrees with the literal reference on random int32 problems', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.boolean(),
        (T, B, K, seed, includeEnd) => {
          let s = seed;
          const next = (m: number): number => {
            s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
            return s % m;
          };
          const n = T * B * K;
          const step = i32(
            [T, B, K],
            Array.from({ length: n }, () => next(4)),
          );
          const parent = i32(
            [T, B, K],
            Array.from({ length: n }, () => next(K)),
          );
          const len = i32(
            [B],
            Array.from({ length: B }, () => next(T + 3) - 1),
          );
          const ref = referenceGatherTree(step, parent, len, 0);
          if (!ref.ok) throw new Error('reference failed on a valid problem');
          const r = decodeBeams(step, parent, len, 0, { includeEnd });
          for (let b = 0; b < B; b++) {
            for (let k = 0; k < K; k++) {
              const column = Array.from({ length: T }, (_, t) => ref.values[(t * B + b) * K + k]);
              const cut = column.indexOf(0);
              const expected = cut < 0 ? column : column.slice(0, includeEnd ? cut + 1 : cut);
              const got = r.beams[b * K + k];
              expect(got?.tokens).toEqual(expected);
              expect(got?.ended).toBe(cut >= 0);
            }
          }
          // The batch-major route gives the same sequences.
          const gathered = gatherTree(step, parent, len, 0);
          expect(
            beamSequences(toBatchMajor(gathered), 0, { layout: 'batch-major', includeEnd }),
          ).toEqual(r);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('printing helpers', () => {
  it('formatTokens joins with single spaces, exactly for bigints', () => {
    expect(formatTokens([1, 5, 8, 7])).toBe('1 5 8 7');
    expect(formatTokens([2n ** 63n - 1n, 0])).toBe('9223372036854775807 0');
    expect(formatTokens([])).toBe('');
  });

  it('beamsToJson: compact, parseable, exact for bigints', () => {
    const json = beamsToJson(EXPECTED);
    expect(json).toBe(
      '{"dtype":"int32","endToken":9,"maxTime":4,"batchSize":2,"beamWidth":2,"includeEnd":false,"beams":[' +
        '{"batch":0,"beam":0,"length":4,"ended":false,"tokens":[1,5,8,7]},' +
        '{"batch":0,"beam":1,"length":1,"ended":true,"tokens":[1]},' +
        '{"batch":1,"beam":0,"length":2,"ended":true,"tokens":[4,6]},' +
        '{"batch":1,"beam":1,"length":2,"ended":true,"tokens":[4,7]}]}',
    );
    expect(JSON.parse(json)).toEqual(EXPECTED);
    const big = beamSequences(tensorFrom('int64', [1, 1, 1], [2n ** 63n - 1n]), 0);
    expect(beamsToJson(big)).toContain('"tokens":[9223372036854775807]');
  });

  it('beamsToJson pretty: one field and one beam per line', () => {
    const small = beamSequences(i32([2, 1, 2], [3, 4, 0, 5]), 0);
    expect(beamsToJson(small, { pretty: true })).toBe(
      [
        '{',
        '  "dtype": "int32",',
        '  "endToken": 0,',
        '  "maxTime": 2,',
        '  "batchSize": 1,',
        '  "beamWidth": 2,',
        '  "includeEnd": false,',
        '  "beams": [',
        '    {"batch": 0, "beam": 0, "length": 1, "ended": true, "tokens": [3]},',
        '    {"batch": 0, "beam": 1, "length": 2, "ended": false, "tokens": [4, 5]}',
        '  ]',
        '}',
      ].join('\n'),
    );
    expect(JSON.parse(beamsToJson(small, { pretty: true }))).toEqual(small);
    const none = beamSequences(i32([2, 0, 2], []), 0);
    expect(JSON.parse(beamsToJson(none, { pretty: true }))).toEqual(none);
  });
});
