import { createTensor, tensorFrom } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { tensorJson } from './tensor-json.js';

const doc = async (t: Parameters<typeof tensorJson>[0]): Promise<string> =>
  (await tensorJson(t)).trimEnd();

describe('tensorJson', () => {
  it('prints floats with the shortest digits of their own dtype, non-finite values as strings', async () => {
    expect(
      await doc(
        tensorFrom('float32', [2, 3], [0.1, -0, 4, Number.NaN, Number.POSITIVE_INFINITY, 1e-5]),
      ),
    ).toBe('{"dtype":"float32","shape":[2,3],"data":[[0.1,-0.0,4.0],["nan","inf",1e-05]]}');
    expect(await doc(tensorFrom('float16', [2], [0.1, 65504]))).toBe(
      '{"dtype":"float16","shape":[2],"data":[0.1,6.55e+04]}',
    );
    expect(await doc(tensorFrom('float64', [1], [0.1]))).toBe(
      '{"dtype":"float64","shape":[1],"data":[0.1]}',
    );
  });

  it('keeps 64-bit integers exact, and writes scalars and empty tensors', async () => {
    expect(await doc(tensorFrom('int64', [2], [2n ** 63n - 1n, -(2n ** 63n)]))).toBe(
      '{"dtype":"int64","shape":[2],"data":[9223372036854775807,-9223372036854775808]}',
    );
    expect(await doc(tensorFrom('int32', [], [7]))).toBe('{"dtype":"int32","shape":[],"data":7}');
    expect(await doc(createTensor('uint8', [2, 0]))).toBe(
      '{"dtype":"uint8","shape":[2,0],"data":[[],[]]}',
    );
  });

  it('writes complex numbers as [re, im] in the precision of their parts', async () => {
    const bytes = new Uint8Array(new Float32Array([0.1, -2]).buffer);
    expect(await doc(createTensor('complex64', [1], bytes))).toBe(
      '{"dtype":"complex64","shape":[1],"data":[[0.1,-2.0]]}',
    );
  });

  it('decodes float8 codes to their values', async () => {
    // e4m3fn: 0x38 = 1.0, 0xB8 = -1.0, 0x7E = 448 (largest finite), 0x7F = NaN.
    const t = createTensor('float8_e4m3fn', [4], new Uint8Array([0x38, 0xb8, 0x7e, 0x7f]));
    expect(await doc(t)).toBe(
      '{"dtype":"float8_e4m3fn","shape":[4],"data":[1.0,-1.0,448.0,"nan"]}',
    );
  });

  it('nests every rank, and keeps the empty dimensions of an empty tensor', async () => {
    expect(await doc(tensorFrom('int8', [2, 2, 2], [1, 2, 3, 4, 5, 6, 7, 8]))).toBe(
      '{"dtype":"int8","shape":[2,2,2],"data":[[[1,2],[3,4]],[[5,6],[7,8]]]}',
    );
    expect(await doc(createTensor('bool', [2, 1, 0, 3]))).toBe(
      '{"dtype":"bool","shape":[2,1,0,3],"data":[[[]],[[]]]}',
    );
    expect(await doc(createTensor('float32', [0]))).toBe(
      '{"dtype":"float32","shape":[0],"data":[]}',
    );
    expect(await doc(tensorFrom('bool', [1, 2], [1, 0]))).toBe(
      '{"dtype":"bool","shape":[1,2],"data":[[true,false]]}',
    );
  });
});
