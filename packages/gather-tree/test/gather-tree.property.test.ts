import { createTensor, type Dtype, type Tensor, TensorOpsError, tensorFrom } from '@tensorops/core';
import { setWasmKernelsEnabled } from '@tensorops/core/internal';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { STEP_DTYPES } from '../src/end-token.js';
import { gatherTree } from '../src/gather-tree/index.js';
import { referenceGatherTree, type Value } from './reference.js';

const INDEX_DTYPES = [
  'int8',
  'uint8',
  'int16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'float32',
  'float64',
] as const;

const isFloat = (d: Dtype): boolean => d === 'float32' || d === 'float64';
const is64 = (d: Dtype): boolean => d === 'int64' || d === 'uint64';

/** Step ids: mostly small (so end tokens 0..3 are met), plus values that only some dtypes keep. */
function stepValue(dtype: Dtype, dirty: boolean): fc.Arbitrary<Value> {
  const small = fc.integer({ min: 0, max: 5 });
  const extra: fc.Arbitrary<Value>[] = [];
  if (is64(dtype)) extra.push(fc.constantFrom<Value>(2n ** 62n + 1n, 2n ** 32n + 2n));
  if (dtype === 'int64') extra.push(fc.constant<Value>(-(2n ** 63n)));
  if (dtype === 'int32') extra.push(fc.constantFrom<Value>(-2147483648, 2147483647));
  if (isFloat(dtype)) {
    extra.push(fc.constantFrom<Value>(-0, 2 ** 24, -7));
    if (dirty) extra.push(fc.constantFrom<Value>(0.5, Number.NaN, Number.POSITIVE_INFINITY));
  }
  return extra.length === 0 ? small : fc.oneof({ weight: 6, arbitrary: small }, ...extra);
}

/** Parents: in [0, K) unless `dirty`, then now and then out of range or (float) non-integral. */
function parentValue(dtype: Dtype, K: number, dirty: boolean): fc.Arbitrary<Value> {
  const valid = fc.integer({ min: 0, max: Math.max(0, K - 1) });
  if (!dirty) return valid;
  const bad: Value[] = [K, K + 1, 127];
  if (!dtype.startsWith('u')) bad.push(-1);
  if (is64(dtype)) bad.push(2n ** 32n, 2n ** 40n + 1n);
  if (isFloat(dtype)) bad.push(0.5, Number.NaN);
  return fc.oneof({ weight: 12, arbitrary: valid }, fc.constantFrom(...bad));
}

function lengthValue(dtype: Dtype, T: number, dirty: boolean): fc.Arbitrary<Value> {
  const lo = dtype.startsWith('u') ? 0 : -3;
  const plain = fc.integer({ min: lo, max: T + 3 });
  const extra: Value[] = [];
  if (is64(dtype)) extra.push(2n ** 33n + 1n);
  if (dtype === 'int64') extra.push(-(2n ** 40n));
  if (isFloat(dtype) && dirty) extra.push(1.5);
  return extra.length === 0
    ? plain
    : fc.oneof({ weight: 8, arbitrary: plain }, fc.constantFrom(...extra));
}

const problem = fc
  .record({
    T: fc.integer({ min: 0, max: 7 }),
    B: fc.integer({ min: 0, max: 4 }),
    // Mostly narrow beams; 15-17 reach the wasm walk's widest vector (16) and just past it.
    K: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 5 }) },
      fc.constantFrom(15, 16, 17),
    ),
    stepDtype: fc.constantFrom(...STEP_DTYPES),
    parentDtype: fc.constantFrom(...INDEX_DTYPES),
    lenDtype: fc.constantFrom(...INDEX_DTYPES),
    dirty: fc.boolean(),
    end: fc.integer({ min: 0, max: 3 }),
    endForm: fc.constantFrom('number', 'bigint', 'tensor'),
  })
  .chain((p) => {
    const n = p.T * p.B * p.K;
    return fc.record({
      p: fc.constant(p),
      steps: fc.array(stepValue(p.stepDtype, p.dirty), { minLength: n, maxLength: n }),
      parents: fc.array(parentValue(p.parentDtype, p.K, p.dirty), { minLength: n, maxLength: n }),
      lens: fc.array(lengthValue(p.lenDtype, p.T, p.dirty), { minLength: p.B, maxLength: p.B }),
    });
  });

const bytes = (t: Tensor): number[] => Array.from(t.data);

afterEach(() => setWasmKernelsEnabled(true));

describe('gatherTree vs the literal reference', () => {
  it('agrees on random shapes, dtypes, lengths, end tokens and invalid parents', () => {
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(problem, ({ p, steps, parents, lens }) => {
        const shape = [p.T, p.B, p.K];
        const step = tensorFrom(p.stepDtype, shape, steps);
        const parent = tensorFrom(p.parentDtype, shape, parents);
        const len = tensorFrom(p.lenDtype, [p.B], lens);
        const exactEnd: Value = is64(p.stepDtype) ? BigInt(p.end) : p.end;
        const end =
          p.endForm === 'number'
            ? p.end
            : p.endForm === 'bigint'
              ? BigInt(p.end)
              : tensorFrom(p.stepDtype, [], [exactEnd]);

        const ref = referenceGatherTree(step, parent, len, exactEnd);
        // The wasm walk (on for every size here) and the JavaScript walks must agree with the
        // reference and with each other, error messages included.
        const messages: string[] = [];
        for (const wasm of [false, true]) {
          setWasmKernelsEnabled(wasm, 0);
          let out: Tensor | undefined;
          let error: unknown;
          try {
            out = gatherTree(step, parent, len, end);
          } catch (e) {
            error = e;
          }
          if (ref.ok) {
            expect(error).toBeUndefined();
            expect(out?.dtype).toBe(p.stepDtype);
            expect(out?.shape).toEqual(shape);
            // Bytes, not values: the kernel must reproduce every bit the reference copies.
            const expected = bytes(tensorFrom(p.stepDtype, shape, ref.values));
            expect(bytes(out as Tensor)).toEqual(expected);
            // Into a dirty caller's `out`: every byte must be written, none left from before.
            const dirtyOut = createTensor(p.stepDtype, shape);
            dirtyOut.data.fill(0xa5);
            expect(gatherTree(step, parent, len, end, { out: dirtyOut })).toBe(dirtyOut);
            expect(bytes(dirtyOut)).toEqual(expected);
          } else {
            expect(error).toBeInstanceOf(TensorOpsError);
            expect(ref.errors.has((error as TensorOpsError).code)).toBe(true);
            messages.push((error as TensorOpsError).message);
          }
        }
        setWasmKernelsEnabled(true);
        if (ref.ok) valid++;
        else {
          invalid++;
          expect(messages[1]).toBe(messages[0]);
        }
      }),
      { numRuns: 1500 },
    );
    // Both branches must really be exercised for the comparison to mean something.
    expect(valid).toBeGreaterThan(500);
    expect(invalid).toBeGreaterThan(50);
  });

  it('agrees on larger int32 problems', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (T, B, K, seed) => {
          let s = seed;
          const next = (m: number): number => {
            s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
            return s % m;
          };
          const n = T * B * K;
          const shape = [T, B, K];
          const step = tensorFrom(
            'int32',
            shape,
            Array.from({ length: n }, () => next(30)),
          );
          const parent = tensorFrom(
            'int32',
            shape,
            Array.from({ length: n }, () => next(K)),
          );
          const len = tensorFrom(
            'int32',
            [B],
            Array.from({ length: B }, () => next(T + 4) - 2),
          );
          const ref = referenceGatherTree(step, parent, len, 1);
          expect(ref.ok).toBe(true);
          if (ref.ok) {
            expect(bytes(gatherTree(step, parent, len, 1))).toEqual(
              bytes(tensorFrom('int32', shape, ref.values)),
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
