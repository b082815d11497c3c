import { describe, expect, expectTypeOf, it } from 'vitest';
import { tensorAt } from '../test/fixtures.js';
import type { Dtype } from './dtype.js';
import { TensorOpsError } from './errors.js';
import {
  alignedView,
  decodeIndices,
  type IndexContext,
  indexValueAt,
  type ValueView,
  valueView,
  ZERO_FILL,
} from './indices.js';
import { createTensor, type Tensor, tensorFrom } from './tensor.js';

const ctx: IndexContext = { op: 'Gather', oob: 'error' };

function errorOf(fn: () => unknown): TensorOpsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TensorOpsError) return e;
    throw e;
  }
  throw new Error('expected a TensorOpsError');
}

describe('decodeIndices', () => {
  it('maps negative indices to positions for every integer dtype', () => {
    const signed: Dtype[] = ['int8', 'int16', 'int32', 'int64'];
    for (const dtype of signed) {
      const values = dtype === 'int64' ? [-5n, -1n, 0n, 4n] : [-5, -1, 0, 4];
      const out = decodeIndices(tensorFrom(dtype, [4], values), [5], ctx);
      expect(out).toBeInstanceOf(Int32Array);
      expect(Array.from(out), dtype).toEqual([0, 4, 0, 4]);
    }
    const unsigned: Dtype[] = ['uint8', 'uint16', 'uint32', 'uint64'];
    for (const dtype of unsigned) {
      const values = dtype === 'uint64' ? [4n, 0n] : [4, 0];
      expect(Array.from(decodeIndices(tensorFrom(dtype, [2], values), [5], ctx)), dtype).toEqual([
        4, 0,
      ]);
    }
  });

  it('reads int64 as Int32 pairs without aliasing or losing precision', () => {
    const bound = 2 ** 31 + 10; // wide bounds switch to a Float64Array of positions
    const values = [2n ** 31n + 9n, -1n, -(2n ** 31n) - 10n, 2n ** 31n];
    const out = decodeIndices(tensorFrom('int64', [4], values), [bound], ctx);
    expect(out).toBeInstanceOf(Float64Array);
    expect(Array.from(out)).toEqual([2 ** 31 + 9, 2 ** 31 + 9, 0, 2 ** 31]);
    const e = errorOf(() => decodeIndices(tensorFrom('int64', [1], [2n ** 32n + 1n]), [2], ctx));
    expect(e.message).toBe('Gather: index 4294967297 out of range [-2, 1] at indices[0]');
  });

  it('reads uint32 above 2^31 as positive (no sign aliasing)', () => {
    const e = errorOf(() => decodeIndices(tensorFrom('uint32', [1], [2 ** 32 - 1]), [5], ctx));
    expect(e.code).toBe('E_INDEX_RANGE');
    expect(e.message).toBe('Gather: index 4294967295 out of range [-5, 4] at indices[0]');
  });

  it('checks each element against its own bound (GatherND-style periodic bounds)', () => {
    const indices = tensorFrom('int32', [2, 2], [1, -3, 0, 5]);
    const where = (dim: number) => `(coordinate ${dim})`;
    const e = errorOf(() =>
      decodeIndices(indices, [2, 3], { op: 'GatherND', oob: 'error', where }),
    );
    expect(e.message).toBe('GatherND: index 5 out of range [-3, 2] at indices[1,1] (coordinate 1)');
    const zero = decodeIndices(indices, [2, 3], { op: 'GatherND', oob: 'zero' });
    expect(Array.from(zero)).toEqual([1, 0, 0, ZERO_FILL]);
  });

  it("marks out-of-range values ZERO_FILL under oob: 'zero'", () => {
    const out = decodeIndices(tensorFrom('int16', [5], [3, -4, 4, -3, 0]), [3], {
      op: 'Gather',
      oob: 'zero',
    });
    expect(Array.from(out)).toEqual([ZERO_FILL, ZERO_FILL, ZERO_FILL, 0, 0]);
  });

  it('decodes from unaligned views', () => {
    for (const dtype of ['int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'] as const) {
      const big = dtype.endsWith('64');
      const t = tensorFrom(dtype, [3], big ? [2n, 0n, 1n] : [2, 0, 1]);
      for (const offset of [1, 2, 3, 5]) {
        expect(
          Array.from(decodeIndices(tensorAt(t, offset), [3], ctx)),
          `${dtype}@${offset}`,
        ).toEqual([2, 0, 1]);
      }
    }
  });

  it('refuses non-integer dtypes', () => {
    for (const dtype of ['float32', 'bool', 'float16', 'U2'] as const) {
      const t = createTensor(dtype, [1]);
      const e = errorOf(() => decodeIndices(t, [3], ctx));
      expect(e.code).toBe('E_DTYPE');
      expect(e.message).toBe(`Gather: indices must have an integer dtype, got ${dtype}`);
    }
  });
});

describe('indexValueAt', () => {
  it('prints the exact value of every integer dtype', () => {
    const cases: Array<[Dtype, number | bigint, string]> = [
      ['int8', -128, '-128'],
      ['uint8', 255, '255'],
      ['int16', -32768, '-32768'],
      ['uint16', 65535, '65535'],
      ['int32', -(2 ** 31), '-2147483648'],
      ['uint32', 2 ** 32 - 1, '4294967295'],
      ['int64', -(2n ** 63n), '-9223372036854775808'],
      ['uint64', 2n ** 64n - 1n, '18446744073709551615'],
    ];
    for (const [dtype, value, text] of cases) {
      const t = tensorAt(
        tensorFrom(
          dtype,
          [2],
          [0, value].map((v) => (typeof value === 'bigint' ? BigInt(v) : v)),
        ),
        3,
      );
      expect(indexValueAt(t, 1)).toBe(text);
    }
  });
});

describe('alignedView', () => {
  it('views aligned bytes in place and copies unaligned ones', () => {
    const bytes = new Uint8Array(16);
    const aligned = alignedView(bytes.subarray(4, 12), Int32Array);
    expect(aligned.buffer).toBe(bytes.buffer);
    expect(aligned.length).toBe(2);
    const shifted = bytes.subarray(1, 9);
    shifted.set([1, 0, 0, 0, 2, 0, 0, 0]);
    const copy = alignedView(shifted, Int32Array);
    expect(copy.buffer).not.toBe(bytes.buffer);
    expect(Array.from(copy)).toEqual([1, 2]);
  });
});

describe('decodeIndices: the one-bound fast paths agree with the general loop', () => {
  // One bound takes decodeInt64Single / decodeNarrowSingle; the same bound twice takes the general
  // per-element loop (period 2). Both must give the same positions, zero fills and first error.
  const int64Values = [
    0n,
    9n,
    -1n,
    -10n,
    10n,
    -11n,
    2n ** 32n,
    2n ** 32n + 3n,
    -(2n ** 32n) + 3n,
    2n ** 31n,
    -(2n ** 31n),
    2n ** 63n - 1n,
    -(2n ** 63n),
  ];
  it('int64 and int32: positions and ZERO_FILL under oob zero', () => {
    for (const dtype of ['int64', 'int32'] as const) {
      const values =
        dtype === 'int64' ? int64Values : [0, 9, -1, -10, 10, -11, 2 ** 31 - 1, -(2 ** 31)];
      const t = tensorFrom(dtype, [values.length], values);
      const zero: IndexContext = { op: 'Gather', oob: 'zero' };
      const fast = [...decodeIndices(t, [10], zero)];
      expect(fast).toEqual([...decodeIndices(t, [10, 10], zero)]);
      expect(fast.slice(0, 6)).toEqual([0, 9, 9, 0, ZERO_FILL, ZERO_FILL]);
      expect(fast.slice(6).every((p) => p === ZERO_FILL)).toBe(true);
    }
  });
  it('int64: the first offending value is reported whole, in both paths', () => {
    for (let at = 0; at < int64Values.length; at++) {
      const bad = int64Values[at] as bigint;
      if (bad >= -10n && bad < 10n) continue;
      const values = [1n, -2n, bad, 2n ** 40n];
      const t = tensorFrom('int64', [2, 2], values);
      const expected = `Gather: index ${bad} out of range [-10, 9] at indices[1,0]`;
      expect(errorOf(() => decodeIndices(t, [10], ctx)).message).toBe(expected);
      expect(errorOf(() => decodeIndices(t, [10, 10], ctx)).message).toBe(expected);
    }
  });
});

describe('valueView', () => {
  it('is typed by the dtype: a float32 tensor gives a Float32Array without a cast', () => {
    const f32: Float32Array = valueView(tensorFrom('float32', [2], [1.5, -2]));
    expect([...f32]).toEqual([1.5, -2]);
    const i16: Int16Array = valueView(tensorFrom('int16', [2], [-3, 7]));
    expect([...i16]).toEqual([-3, 7]);
    expectTypeOf(valueView(tensorFrom('uint32', [1], [1]))).toEqualTypeOf<Uint32Array>();
    // A tensor whose dtype is only known at run time gives the union and throws for the rest.
    const any: Tensor = tensorFrom('int64', [1], [1n]);
    expectTypeOf(() => valueView(any)).returns.toEqualTypeOf<ValueView>();
    expect(() => valueView(any)).toThrow(/no number view for dtype int64/);
  });

  it('copies unaligned bytes before viewing them', () => {
    const bytes = new Uint8Array(9);
    new DataView(bytes.buffer).setFloat64(1, -0.25, true);
    const t = createTensor('float64', [1], bytes.subarray(1));
    expect([...valueView(t)]).toEqual([-0.25]);
  });
});
