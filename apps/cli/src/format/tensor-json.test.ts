import { createTensor, tensorFrom } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { tensorJson } from './tensor-json.js';

const doc = (t: Parameters<typeof tensorJson>[0]): string => tensorJson(t).trimEnd();

describe('tensorJson', () => {
  it('prints floats with the shortest digits of their own dtype, non-finite values as strings', () => {
    expect(
      doc(tensorFrom('float32', [2, 3], [0.1, -0, 4, Number.NaN, Number.POSITIVE_INFINITY, 1e-5])),
    ).toBe('{"dtype":"float32","shape":[2,3],"data":[[0.1,-0.0,4.0],["nan","inf",1e-05]]}');
    expect(doc(tensorFrom('float16', [2], [0.1, 65504]))).toBe(
      '{"dtype":"float16","shape":[2],"data":[0.1,6.55e+04]}',
    );
    expect(doc(tensorFrom('float64', [1], [0.1]))).toBe(
      '{"dtype":"float64","shape":[1],"data":[0.1]}',
    );
  });

  it('keeps 64-bit integers exact, and writes scalars and empty tensors', () => {
    expect(doc(tensorFrom('int64', [2], [2n ** 63n - 1n, -(2n ** 63n)]))).toBe(
      '{"dtype":"int64","shape":[2],"data":[9223372036854775807,-9223372036854775808]}',
    );
    expect(doc(tensorFrom('int32', [], [7]))).toBe('{"dtype":"int32","shape":[],"data":7}');
    expect(doc(createTensor('uint8', [2, 0]))).toBe(
      '{"dtype":"uint8","shape":[2,0],"data":[[],[]]}',
    );
  });

  it('writes complex numbers as [re, im] in the precision of their parts', () => {
    const bytes = new Uint8Array(new Float32Array([0.1, -2]).buffer);
    expect(doc(createTensor('complex64', [1], bytes))).toBe(
      '{"dtype":"complex64","shape":[1],"data":[[0.1,-2.0]]}',
    );
  });

  it('decodes float8 codes to their values', () => {
    // e4m3fn: 0x38 = 1.0, 0xB8 = -1.0, 0x7E = 448 (largest finite), 0x7F = NaN.
    const t = createTensor('float8_e4m3fn', [4], new Uint8Array([0x38, 0xb8, 0x7e, 0x7f]));
    expect(doc(t)).toBe('{"dtype":"float8_e4m3fn","shape":[4],"data":[1.0,-1.0,448.0,"nan"]}');
  });
});
