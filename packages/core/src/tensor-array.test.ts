import { describe, expect, it } from 'vitest';
import { NUMERIC_DTYPES } from './dtype.js';
import { TensorOpsError } from './errors.js';
import { createTensor, tensorFrom, tensorValues } from './tensor.js';
import { tensorArray } from './tensor-array.js';

/** The same tensor with its bytes moved to an odd byteOffset, where no wide view can start. */
function unaligned<T extends { dtype: string; shape: readonly number[]; data: Uint8Array }>(
  t: T,
): T {
  const store = new Uint8Array(t.data.byteLength + 1);
  store.set(t.data, 1);
  return { ...t, data: store.subarray(1) };
}

/** The typed array each dtype is read as, named by the rule tensorArray documents. */
function arrayName(dtype: string): string {
  if (dtype === 'bool') return 'Uint8Array';
  if (/^(float16|bfloat16|float8_.*|complex64)$/.test(dtype)) return 'Float32Array';
  if (dtype === 'complex128') return 'Float64Array';
  const wide = dtype.endsWith('64') && !dtype.startsWith('float') ? 'Big' : '';
  return `${wide}${dtype[0]?.toUpperCase()}${dtype.slice(1)}Array`;
}

describe('tensorArray', () => {
  it.each(NUMERIC_DTYPES)(
    'gives %s as its typed array, aligned or not, with the same values',
    (dtype) => {
      const bytes = Uint8Array.from({ length: 4 * 16 }, (_, i) => (i * 37 + 11) & 0xff);
      const elements = dtype === 'complex128' ? 4 : dtype === 'complex64' ? 8 : 0;
      const t = createTensor(
        dtype,
        [elements || bytes.length / createTensor(dtype, [1]).data.length],
        bytes,
      );
      for (const tensor of [t, unaligned(t)]) {
        const a = tensorArray(tensor);
        expect(a.constructor.name).toBe(arrayName(dtype));
        if (dtype.startsWith('complex')) {
          // Interleaved real and imaginary parts: the bytes, read as floats of half the width.
          const part = dtype === 'complex64' ? Float32Array : Float64Array;
          expect(Array.from(a as Float32Array)).toEqual(Array.from(new part(bytes.slice().buffer)));
        } else {
          expect(Array.from(a as ArrayLike<number | bigint>)).toEqual(tensorValues(tensor));
        }
      }
    },
  );

  it('shares aligned bytes and copies unaligned ones', () => {
    const t = tensorFrom('int32', [2], [1, 2]);
    expect((tensorArray(t) as Int32Array).buffer).toBe(t.data.buffer);
    const u = unaligned(t);
    expect((tensorArray(u) as Int32Array).buffer).not.toBe(u.data.buffer);
  });

  it('keeps int64 and uint64 exact beyond 2^53', () => {
    expect(
      Array.from(tensorArray(tensorFrom('int64', [2], [-(2n ** 63n), 2n ** 53n + 1n]))),
    ).toEqual([-(2n ** 63n), 2n ** 53n + 1n]);
    expect(Array.from(tensorArray(tensorFrom('uint64', [1], [2n ** 64n - 1n])))).toEqual([
      2n ** 64n - 1n,
    ]);
  });

  it('decodes float16, bfloat16 and float8 exactly, NaN codes as NaN', () => {
    const half = createTensor(
      'float16',
      [4],
      new Uint8Array([0x01, 0x00, 0xff, 0x7b, 0x00, 0xfc, 0x01, 0x7c]),
    );
    expect(Array.from(tensorArray(half))).toEqual([2 ** -24, 65504, -Infinity, Number.NaN]);
    const bf = createTensor('bfloat16', [2], new Uint8Array([0x81, 0x3f, 0x7f, 0x7f]));
    expect(Array.from(tensorArray(bf))).toEqual([1.0078125, 3.3895313892515355e38]);
    const f8 = createTensor('float8_e4m3fn', [3], new Uint8Array([0x7e, 0x01, 0xff]));
    expect(Array.from(tensorArray(f8))).toEqual([448, 2 ** -9, Number.NaN]);
  });

  it('refuses string dtypes with E_DTYPE', () => {
    expect(() => tensorArray(createTensor('U2', [1]))).toThrow(TensorOpsError);
    expect(() => tensorArray(createTensor('S3', [1]))).toThrow(
      /tensorArray does not read string dtype S3/,
    );
  });
});
