import { describe, expect, it } from 'vitest';
import { hex } from '../test/assert.js';
import { DTYPE_SIZES, type Dtype, NUMERIC_DTYPES } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { createTensor, tensorBytes, tensorFrom, tensorValues } from './tensor.js';

function errorOf(fn: () => unknown): TensorOpsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TensorOpsError) return e;
    throw e;
  }
  throw new Error('expected a TensorOpsError');
}

describe('createTensor', () => {
  it('allocates zeroed storage of shape x item size', () => {
    const t = createTensor('complex128', [2, 3]);
    expect(t.data.byteLength).toBe(96);
    expect(t.data.every((b) => b === 0)).toBe(true);
    expect(createTensor('U3', [2]).data.byteLength).toBe(24);
    expect(createTensor('float32', []).data.byteLength).toBe(4);
    expect(createTensor('float32', [4, 0]).data.byteLength).toBe(0);
  });

  it('wraps given bytes without copying and copies the shape', () => {
    const bytes = new Uint8Array(8);
    const shape = [2, 2];
    const t = createTensor('int16', shape, bytes);
    expect(t.data).toBe(bytes);
    shape[0] = 9;
    expect(t.shape).toEqual([2, 2]);
  });

  it('refuses bytes of the wrong length, bad shapes and unknown dtypes', () => {
    const e = errorOf(() => createTensor('float32', [2, 3], new Uint8Array(20)));
    expect(e.code).toBe('E_SHAPE');
    expect(e.message).toBe('tensor of dtype float32 and shape [2,3] needs 24 bytes, got 20');
    expect(errorOf(() => createTensor('int8', [2, -1])).code).toBe('E_SHAPE');
    expect(errorOf(() => createTensor('int8', [1.5])).code).toBe('E_SHAPE');
    expect(errorOf(() => createTensor('nope' as Dtype, [1])).code).toBe('E_DTYPE');
  });

  it('a tensor too large for any buffer is E_SHAPE naming its exact size', () => {
    const e = errorOf(() => createTensor('uint8', [2 ** 30, 2 ** 30, 2 ** 30]));
    expect(e.code).toBe('E_SHAPE');
    expect(e.message).toBe(
      'tensor of dtype uint8 and shape [1073741824,1073741824,1073741824] needs 1237940039285380274899124224 bytes, more than can be allocated',
    );
    expect(errorOf(() => createTensor('float64', [2 ** 52, 4])).code).toBe('E_SHAPE');
  });

  it('tensorBytes is shape x item size', () => {
    expect(tensorBytes({ dtype: 'uint64', shape: [3, 2] })).toBe(48);
    expect(tensorBytes({ dtype: 'S5', shape: [] })).toBe(5);
  });
});

describe('tensorFrom / tensorValues', () => {
  it('writes little-endian bytes', () => {
    expect(hex(tensorFrom('int32', [1], [0x01020304]).data)).toBe('04030201');
    expect(hex(tensorFrom('uint16', [2], [0xabcd, 1]).data)).toBe('cdab0100');
    expect(hex(tensorFrom('float32', [2], [-0, 1]).data)).toBe('000000800000803f');
    expect(hex(tensorFrom('float64', [1], [-2]).data)).toBe('00000000000000c0');
    expect(hex(tensorFrom('int64', [1], [-(2n ** 63n)]).data)).toBe('0000000000000080');
    expect(hex(tensorFrom('uint64', [1], [2n ** 64n - 2n]).data)).toBe('feffffffffffffff');
    expect(hex(tensorFrom('bool', [5], [true, false, 1, 0, 1n]).data)).toBe('0100010001');
  });

  it('rounds float16 and bfloat16 values to nearest even', () => {
    expect(hex(tensorFrom('float16', [4], [1, 65504, 1 + 2 ** -11, -0]).data)).toBe(
      '003cff7b003c0080',
    );
    expect(hex(tensorFrom('bfloat16', [3], [1, 1 + 2 ** -8, 1 + 3 * 2 ** -8]).data)).toBe(
      '803f803f823f',
    );
  });

  it('round-trips extremes of every dtype it reads', () => {
    const cases: Array<[Dtype, Array<number | bigint>]> = [
      ['bool', [0, 1]],
      ['int8', [-128, 127, 0]],
      ['uint8', [0, 255]],
      ['int16', [-32768, 32767]],
      ['uint16', [0, 65535]],
      ['int32', [-(2 ** 31), 2 ** 31 - 1]],
      ['uint32', [0, 2 ** 32 - 1]],
      ['int64', [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -1n]],
      ['uint64', [0n, 2n ** 64n - 1n, 2n ** 53n + 1n]],
      ['float32', [-0, 3.4028234663852886e38, 1.401298464324817e-45, Number.NEGATIVE_INFINITY]],
      ['float64', [-0, Number.MAX_VALUE, Number.MIN_VALUE, Number.POSITIVE_INFINITY, 0.1]],
    ];
    for (const [dtype, values] of cases) {
      expect(tensorValues(tensorFrom(dtype, [values.length], values)), dtype).toEqual(values);
    }
    expect(Object.is(tensorValues(tensorFrom('float64', [1], [-0]))[0], -0)).toBe(true);
  });

  it('reads 2-D tensors in C order and accepts numbers for 64-bit dtypes', () => {
    const t = tensorFrom('int64', [2, 2], [1, 2, 3, -4]);
    expect(tensorValues(t)).toEqual([1n, 2n, 3n, -4n]);
  });

  it('refuses dtypes it cannot convert and value counts that do not fit the shape', () => {
    for (const dtype of ['complex64', 'complex128', 'float8_e4m3fn', 'U3', 'S2'] as const) {
      const e = errorOf(() => tensorFrom(dtype, [1], [0]));
      expect(e.code).toBe('E_DTYPE');
      expect(e.message).toBe(
        `tensorFrom does not take ${dtype} values; pass raw bytes to createTensor`,
      );
    }
    const e = errorOf(() => tensorFrom('int32', [2, 2], [1, 2, 3]));
    expect(e.code).toBe('E_SHAPE');
    expect(e.message).toBe('shape [2,2] holds 4 elements, got 3 values');
    for (const dtype of ['complex64', 'complex128', 'U3', 'S2'] as const) {
      const r = errorOf(() => tensorValues(createTensor(dtype, [1])));
      expect(r.code).toBe('E_DTYPE');
      expect(r.message).toBe(`tensorValues does not read ${dtype}; read its bytes`);
    }
  });

  it('refuses a value its dtype cannot hold, naming it and its position, never wrapping it', () => {
    const refused = (dtype: Dtype, shape: number[], values: unknown[]): Error => {
      try {
        tensorFrom(dtype, shape, values as number[]);
      } catch (e) {
        return e as Error;
      }
      throw new Error(`tensorFrom(${dtype}) took ${String(values)}`);
    };
    const int32 = 'integers in [-2147483648, 2147483647]';
    const cases: Array<[Dtype, number[], unknown[], string]> = [
      [
        'uint8',
        [2],
        [0, 256],
        'values[1] (at [1]) is 256, which uint8 cannot hold (it holds integers in [0, 255])',
      ],
      [
        'uint8',
        [1],
        [-1],
        'values[0] (at [0]) is -1, which uint8 cannot hold (it holds integers in [0, 255])',
      ],
      [
        'int8',
        [1],
        [128],
        'values[0] (at [0]) is 128, which int8 cannot hold (it holds integers in [-128, 127])',
      ],
      [
        'int32',
        [1, 2],
        [0, 1.5],
        `values[1] (at [0,1]) is 1.5, which int32 cannot hold (it holds ${int32})`,
      ],
      [
        'int32',
        [2, 1],
        [0, Number.NaN],
        `values[1] (at [1,0]) is NaN, which int32 cannot hold (it holds ${int32})`,
      ],
      [
        'int32',
        [1],
        [2 ** 32 + 1],
        `values[0] (at [0]) is 4294967297, which int32 cannot hold (it holds ${int32})`,
      ],
      [
        'uint32',
        [1],
        [Number.POSITIVE_INFINITY],
        'values[0] (at [0]) is Infinity, which uint32 cannot hold (it holds integers in [0, 4294967295])',
      ],
      [
        'int64',
        [1],
        [2n ** 63n],
        'values[0] (at [0]) is 9223372036854775808, which int64 cannot hold (it holds integers in [-9223372036854775808, 9223372036854775807])',
      ],
      [
        'int64',
        [1],
        [2 ** 63],
        'values[0] (at [0]) is 9223372036854775808, which int64 cannot hold (it holds integers in [-9223372036854775808, 9223372036854775807])',
      ],
      [
        'uint64',
        [1],
        [-1n],
        'values[0] (at [0]) is -1, which uint64 cannot hold (it holds integers in [0, 18446744073709551615])',
      ],
      [
        'uint64',
        [1],
        [2n ** 64n],
        'values[0] (at [0]) is 18446744073709551616, which uint64 cannot hold (it holds integers in [0, 18446744073709551615])',
      ],
      [
        'bool',
        [3],
        [true, 0, 2],
        'values[2] (at [2]) is 2, which bool cannot hold (it holds true, false, 0 and 1)',
      ],
      [
        'bool',
        [1],
        [Number.NaN],
        'values[0] (at [0]) is NaN, which bool cannot hold (it holds true, false, 0 and 1)',
      ],
      [
        'bool',
        [],
        [0.5],
        'values[0] (at []) is 0.5, which bool cannot hold (it holds true, false, 0 and 1)',
      ],
    ];
    for (const [dtype, shape, values, message] of cases) {
      const e = refused(dtype, shape, values);
      expect(e, message).toBeInstanceOf(RangeError);
      expect(e.message).toBe(`tensorFrom: ${message}`);
    }
    for (const [value, what] of [
      ['1', 'a string'],
      [undefined, 'undefined'],
      [{}, 'an Object'],
    ]) {
      for (const dtype of ['int8', 'float32'] as const) {
        const e = refused(dtype, [1], [value]);
        expect(e).toBeInstanceOf(TypeError);
        expect(e.message).toBe(
          `tensorFrom: values[0] (at [0]) is ${what}, not a number, bigint or boolean`,
        );
      }
    }
  });

  it('keeps what every dtype holds: its extremes, floats rounded, booleans as 0 and 1', () => {
    expect(tensorValues(tensorFrom('int64', [2], [2 ** 63 - 1024, -(2 ** 63)]))).toEqual([
      2n ** 63n - 1024n,
      -(2n ** 63n),
    ]);
    expect(tensorValues(tensorFrom('uint8', [3], [true, false, 255n]))).toEqual([1, 0, 255]);
    expect(tensorValues(tensorFrom('float32', [3], [1.1, Number.NaN, 2n ** 64n]))).toEqual([
      Math.fround(1.1),
      Number.NaN,
      2 ** 64,
    ]);
    expect(tensorValues(tensorFrom('int32', [1], [-0]))).toEqual([0]);
  });

  it('reads every numeric dtype but complex', () => {
    for (const dtype of NUMERIC_DTYPES) {
      const t = createTensor(dtype, [2], new Uint8Array(2 * DTYPE_SIZES[dtype]).fill(0x3c));
      if (dtype.startsWith('complex')) expect(() => tensorValues(t)).toThrow(TensorOpsError);
      else expect(tensorValues(t), dtype).toHaveLength(2);
    }
  });

  it('decodes float16, bfloat16 and float8 bits exactly', () => {
    const u16 = (dtype: 'float16' | 'bfloat16', bits: number[]) =>
      createTensor(dtype, [bits.length], new Uint8Array(Uint16Array.from(bits).buffer));
    expect(tensorValues(u16('float16', [0x3c00, 0xc000, 0x0001, 0x7bff, 0xfc00, 0x8000]))).toEqual([
      1,
      -2,
      2 ** -24,
      65504,
      -Infinity,
      -0,
    ]);
    expect(tensorValues(u16('float16', [0x7e01]))).toEqual([NaN]);
    expect(tensorValues(u16('bfloat16', [0x3fc0, 0xc2f7, 0x0001, 0x7f80, 0x8000]))).toEqual([
      1.5,
      -123.5,
      2 ** -133,
      Infinity,
      -0,
    ]);
    const f8 = (dtype: Dtype, codes: number[]) =>
      tensorValues(createTensor(dtype, [codes.length], Uint8Array.from(codes)));
    // e4m3fn: bias 7, no infinities, 0x7f is NaN, 0x7e the largest (448).
    expect(f8('float8_e4m3fn', [0x38, 0xb8, 0x01, 0x7e, 0x7f])).toEqual([1, -1, 2 ** -9, 448, NaN]);
    // e5m2: bias 15, IEEE-like.
    expect(f8('float8_e5m2', [0x3c, 0x7c, 0xfc, 0x7d])).toEqual([1, Infinity, -Infinity, NaN]);
  });
});
