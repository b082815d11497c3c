import { createTensor, type Dtype, type Tensor, tensorFrom } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { formatG, reprFloat } from './float-text.js';
import { previewLines, pyStrRepr } from './preview.js';

// Every expected string is numpy 2.4's output, pasted when the test was written:
// np.array2string(a, separator=', ', threshold=0, edgeitems=3, max_line_width=10**9) for arrays,
// str(scalar) for scalars. (A generator comparing 3,330 random arrays agreed before this file.)

const text = (t: Tensor): string => previewLines(t).lines.join('\n');

function complexTensor(dtype: 'complex64' | 'complex128', parts: readonly number[]): Tensor {
  const width = dtype === 'complex64' ? 4 : 8;
  const data = new Uint8Array(parts.length * width);
  const view = new DataView(data.buffer);
  parts.forEach((x, i) => {
    if (width === 4) view.setFloat32(i * 4, x, true);
    else view.setFloat64(i * 8, x, true);
  });
  return createTensor(dtype, [parts.length / 2], data);
}

function bytesTensor(dtype: Dtype, width: number, items: readonly (readonly number[])[]): Tensor {
  const data = new Uint8Array(items.length * width);
  items.forEach((item, i) => {
    data.set(item, i * width);
  });
  return createTensor(dtype, [items.length], data);
}

describe('previewLines: floats as numpy prints them', () => {
  it('at most 8 fraction digits, points aligned, trailing zeros dropped', () => {
    expect(text(tensorFrom('float64', [3], [0.1 + 0.2, 1 / 3, 2]))).toBe(
      '[0.3       , 0.33333333, 2.        ]',
    );
  });

  it('rounds exact ties to even, as Dragon4 does', () => {
    expect(text(tensorFrom('float64', [2], [0.501953125, 0.5]))).toBe('[0.50195312, 0.5       ]');
  });

  it('scientific for the whole array when magnitudes call for it, digits padded to match', () => {
    expect(text(tensorFrom('float64', [3], [1e-5, 2.5e-5, 0]))).toBe('[1.0e-05, 2.5e-05, 0.0e+00]');
    expect(text(tensorFrom('float64', [2], [1e300, Number.NaN]))).toBe('[1.e+300,     nan]');
  });

  it('float32 in scientific: the digits past the shortest form are exact digits', () => {
    expect(text(tensorFrom('float32', [3], [634958912, 1.5e9, -3]))).toBe(
      '[ 6.349589e+08,  1.500000e+09, -3.000000e+00]',
    );
  });

  it('float16 turns scientific at 1e3 (numpy cuts at 10**finfo.precision)', () => {
    expect(text(tensorFrom('float16', [2], [999, 1000]))).toBe('[9.99e+02, 1.00e+03]');
    expect(text(tensorFrom('float16', [2], [999, 1.5]))).toBe('[999. ,   1.5]');
  });

  it('nan, inf and -0. share the common width', () => {
    expect(text(tensorFrom('float64', [4], [Number.NaN, Number.NEGATIVE_INFINITY, 1.5, -0]))).toBe(
      '[ nan, -inf,  1.5, -0. ]',
    );
  });

  it('complex: real and imaginary parts formatted as two arrays', () => {
    expect(text(complexTensor('complex64', [1, 2, -1.5, -0.25]))).toBe('[ 1. +2.j  , -1.5-0.25j]');
    expect(
      text(complexTensor('complex128', [1, 2, Number.NaN, -1, 2.5, Number.POSITIVE_INFINITY])),
    ).toBe('[1.  +2.j, nan -1.j, 2.5+infj]');
  });
});

describe('previewLines: layout by shape', () => {
  it('a dimension longer than 6 keeps 3 at each end', () => {
    expect(text(tensorFrom('float32', [10], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))).toBe(
      '[0., 1., 2., ..., 7., 8., 9.]',
    );
  });

  it('3-D: blocks separated by a blank line', () => {
    const t = tensorFrom(
      'int16',
      [2, 3, 4],
      Array.from({ length: 24 }, (_, i) => i),
    );
    expect(previewLines(t).lines).toEqual([
      '[[[ 0,  1,  2,  3],',
      '  [ 4,  5,  6,  7],',
      '  [ 8,  9, 10, 11]],',
      '',
      ' [[12, 13, 14, 15],',
      '  [16, 17, 18, 19],',
      '  [20, 21, 22, 23]]]',
    ]);
  });

  it('a summarised outer dimension prints ... between blocks', () => {
    const t = tensorFrom(
      'uint8',
      [8, 2, 2],
      Array.from({ length: 32 }, (_, i) => i),
    );
    expect(text(t)).toBe(
      '[[[ 0,  1],\n  [ 2,  3]],\n\n [[ 4,  5],\n  [ 6,  7]],\n\n [[ 8,  9],\n  [10, 11]],\n\n ...,\n\n' +
        ' [[20, 21],\n  [22, 23]],\n\n [[24, 25],\n  [26, 27]],\n\n [[28, 29],\n  [30, 31]]]',
    );
  });

  it('stops at maxLines and says it did', () => {
    const t = tensorFrom('int8', [8, 2, 2], new Array(32).fill(0));
    expect(previewLines(t, { maxLines: 3 })).toEqual({
      lines: ['[[[0, 0],', '  [0, 0]],', ''],
      truncated: true,
    });
    expect(previewLines(t, { maxLines: 100 }).truncated).toBe(false);
  });

  it('shows a large tensor in a few lines', () => {
    const t = createTensor('float64', [4096, 4096]);
    expect(previewLines(t).lines).toHaveLength(7);
  });

  it('0-size is [] whatever the shape', () => {
    expect(text(tensorFrom('float32', [0, 3], []))).toBe('[]');
    expect(text(tensorFrom('int8', [2, 0], []))).toBe('[]');
  });
});

describe('previewLines: other dtypes', () => {
  it('int64 beyond 2^53 exactly, right-aligned', () => {
    expect(text(tensorFrom('int64', [2], [9007199254740993n, -9223372036854775808n]))).toBe(
      '[    9007199254740993, -9223372036854775808]',
    );
  });

  it('bool as numpy: " True" and "False"', () => {
    expect(text(tensorFrom('bool', [2], [true, false]))).toBe('[ True, False]');
  });

  it('bytes and unicode strings as Python reprs', () => {
    const s = bytesTensor('S3', 3, [[0x61], [0x00, 0x62, 0x27], [0xff, 0x0a]]);
    // numpy strips trailing NULs only: the leading \x00 stays.
    expect(text(s)).toBe("[b'a', b\"\\x00b'\", b'\\xff\\n']");
    expect(pyStrRepr('ü\t')).toBe("'ü\\t'");
    expect(pyStrRepr('x"y')).toBe("'x\"y'");
    expect(pyStrRepr('a\'b"c')).toBe("'a\\'b\"c'");
  });

  it('scalars print as numpy prints the scalar', () => {
    expect(text(tensorFrom('float64', [], [1e16]))).toBe('1e+16');
    expect(text(tensorFrom('float32', [], [1e6]))).toBe('1e+06');
    expect(text(tensorFrom('float16', [], [999]))).toBe('999.0');
    expect(text(tensorFrom('float64', [], [1e-5]))).toBe('1e-05');
    expect(text(tensorFrom('float32', [], [-0]))).toBe('-0.0');
    expect(text(tensorFrom('int64', [], [-7n]))).toBe('-7');
    expect(text(tensorFrom('bool', [], [true]))).toBe('True');
    expect(text(complexTensor('complex128', [1.5, -0.25]))).toBe('[1.5-0.25j]');
    const c = complexTensor('complex128', [1.5, -0.25]);
    expect(text({ ...c, shape: [] })).toBe('(1.5-0.25j)');
    const n = complexTensor('complex64', [1, Number.NaN]);
    expect(text({ ...n, shape: [] })).toBe('(1+nanj)');
  });
});

describe('reprFloat and formatG', () => {
  it('reprFloat: the shortest digits that read back in the dtype', () => {
    expect(reprFloat(Math.fround(0.1), 'float32')).toBe('0.1');
    expect(reprFloat(0.0999755859375, 'float16')).toBe('0.1');
    expect(reprFloat(65504, 'float16')).toBe('6.55e+04');
    expect(reprFloat(181.25, 'float16')).toBe('181.2'); // a tie between 181.2 and 181.3: even
    expect(reprFloat(5e-324, 'float64')).toBe('5e-324');
    expect(reprFloat(Number.NEGATIVE_INFINITY, 'float64')).toBe('-inf');
  });

  it("formatG is C's %.8g with a .0 on integral values", () => {
    expect(formatG(3.5833333333)).toBe('3.5833333');
    expect(formatG(2)).toBe('2.0');
    expect(formatG(123456789)).toBe('1.2345679e+08');
    expect(formatG(0.00001234)).toBe('1.234e-05');
    expect(formatG(5e-324)).toBe('4.9406565e-324');
    expect(formatG(Number.NaN)).toBe('nan');
  });
});
