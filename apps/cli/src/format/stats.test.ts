import { createTensor, tensorFrom } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { hasStats, sparkline, tensorStats } from './stats.js';

// Histograms below are np.histogram(values, bins) from numpy 2.4, checked when written.

describe('tensorStats', () => {
  it('counts NaN and ±Inf apart and keeps them out of min, max, mean and the bins', () => {
    const t = tensorFrom(
      'float32',
      [7],
      [1, 2.5, -3, 4, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    );
    expect(tensorStats(t, 4)).toEqual({
      count: 7,
      finite: 4,
      nan: 1,
      posInf: 1,
      negInf: 1,
      min: -3,
      max: 4,
      mean: 1.125,
      histogram: [1, 0, 1, 2],
    });
  });

  it('bins like np.histogram, the last bin closed', () => {
    expect(
      tensorStats(tensorFrom('float64', [10], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), 3)?.histogram,
    ).toEqual([3, 3, 4]);
    // Values on the edges: numpy's edge checks, not the raw division, decide the bin.
    expect(tensorStats(tensorFrom('float64', [4], [0, 0.1, 0.2, 0.3]), 3)?.histogram).toEqual([
      1, 1, 2,
    ]);
    expect(
      tensorStats(tensorFrom('float64', [6], [0.1, 0.7, 0.3, 1e-9, 0.99999, 1]), 7)?.histogram,
    ).toEqual([2, 0, 1, 0, 1, 0, 2]);
  });

  it('a constant tensor goes to the middle bin of [x-0.5, x+0.5], as in numpy', () => {
    expect(tensorStats(tensorFrom('float32', [3], [5, 5, 5]), 4)).toMatchObject({
      min: 5,
      max: 5,
      mean: 5,
      histogram: [0, 0, 3, 0],
    });
  });

  it('float16 and bfloat16 are read as their exact values', () => {
    const h = tensorStats(tensorFrom('float16', [4], [0.1, 0.2, 65504, -65504]), 2);
    expect(h).toMatchObject({
      min: -65504,
      max: 65504,
      mean: 0.074981689453125,
      histogram: [1, 3],
    });
    const b = tensorStats(tensorFrom('bfloat16', [3], [1.5, -2, 0.1]), 2);
    expect(b).toMatchObject({
      min: -2,
      max: 1.5,
      mean: (1.5 - 2 + 0.10009765625) / 3,
      histogram: [1, 2],
    });
  });

  it('int64/uint64: exact extremes as bigint, mean as a number', () => {
    const t = tensorFrom(
      'int64',
      [3],
      [9223372036854775807n, -9223372036854775808n, 9007199254740993n],
    );
    const s = tensorStats(t, 2);
    expect(s?.min).toBe(-9223372036854775808n);
    expect(s?.max).toBe(9223372036854775807n);
    // As doubles: 2^63 - 2^63 + 2^53.
    expect(s?.mean).toBe(2 ** 53 / 3);
    expect(s?.histogram).toEqual([1, 2]);
    const u = tensorStats(tensorFrom('uint64', [2], [0n, 18446744073709551615n]), 2);
    expect(u).toMatchObject({
      min: 0n,
      max: 18446744073709551615n,
      mean: 2 ** 63,
      histogram: [1, 1],
    });
    // The low words alone would order these the other way round.
    const w = tensorStats(tensorFrom('int64', [2], [4294967296n, 4294967295n]), 1);
    expect(w).toMatchObject({ min: 4294967295n, max: 4294967296n });
  });

  it('integer and bool tensors get at most one bin per integer', () => {
    expect(tensorStats(tensorFrom('bool', [4], [true, false, true, true]), 16)).toMatchObject({
      min: 0,
      max: 1,
      mean: 0.75,
      histogram: [1, 3],
    });
    expect(tensorStats(tensorFrom('int8', [3], [-128, 127, 127]), 4)?.histogram).toEqual([
      1, 0, 0, 2,
    ]);
    expect(tensorStats(tensorFrom('uint8', [4], [3, 4, 4, 5]), 32)?.histogram).toEqual([1, 2, 1]);
  });

  it('the mean is compensated: 1e16 + 1 - 1e16 does not lose the 1', () => {
    const t = tensorFrom('float64', [3], [1e16, 1, -1e16]);
    expect(tensorStats(t, 1)?.mean).toBe(1 / 3);
  });

  it('a sum that overflows still gives the mean', () => {
    const t = tensorFrom('float64', [2], [1.7e308, 1.7e308]);
    expect(tensorStats(t, 2)).toMatchObject({
      min: 1.7e308,
      max: 1.7e308,
      mean: 1.7e308,
      histogram: [0, 2],
    });
    const wide = tensorFrom('float64', [3], [-1.7e308, 0, 1.7e308]);
    expect(tensorStats(wide, 2)).toMatchObject({ mean: 0, histogram: [1, 2] });
  });

  it('0-size and all-NaN tensors have counts and nothing else', () => {
    expect(tensorStats(tensorFrom('float32', [0, 4], []), 8)).toEqual({
      count: 0,
      finite: 0,
      nan: 0,
      posInf: 0,
      negInf: 0,
      min: undefined,
      max: undefined,
      mean: undefined,
      histogram: [],
    });
    expect(
      tensorStats(tensorFrom('float64', [3], [Number.NaN, Number.NaN, Number.NaN]), 8),
    ).toMatchObject({
      count: 3,
      nan: 3,
      finite: 0,
      min: undefined,
      mean: undefined,
      histogram: [],
    });
    expect(tensorStats(tensorFrom('int64', [0], []), 8)?.min).toBeUndefined();
  });

  it('reads unaligned bytes (a tensor inside a file buffer) the same as aligned ones', () => {
    const aligned = tensorFrom('float32', [3], [1, -2, 0.5]);
    const buffer = new Uint8Array(13);
    buffer.set(aligned.data, 1);
    const shifted = createTensor('float32', [3], buffer.subarray(1));
    expect(tensorStats(shifted, 3)).toEqual(tensorStats(aligned, 3));
  });

  it('complex, strings and float8 have no statistics', () => {
    expect(tensorStats(createTensor('complex64', [1]), 4)).toBeUndefined();
    expect(tensorStats(createTensor('U3', [2]), 4)).toBeUndefined();
    expect(tensorStats(createTensor('float8_e4m3fn', [2]), 4)).toBeUndefined();
    expect(
      ['bool', 'int64', 'bfloat16', 'float64', 'complex128', 'S2', 'float8_e5m2'].map((d) =>
        hasStats(d as never),
      ),
    ).toEqual([true, true, true, true, false, false, false]);
  });

  it('counts every one of 1e6 float32 elements in the histogram', () => {
    const n = 1_000_000;
    const t = createTensor('float32', [n]);
    new Float32Array(t.data.buffer).forEach((_, i, a) => {
      a[i] = Math.sin(i);
    });
    const s = tensorStats(t, 32);
    expect(s?.histogram.reduce((a, b) => a + b, 0)).toBe(n);
  });
});

describe('sparkline', () => {
  it('linear heights, an empty bin is a space', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe(' ▁▂▄█');
    expect(sparkline([0, 1, 2, 4, 8], true)).toBe(' _.-#');
    expect(sparkline([1, 1000])).toBe('▁█');
    expect(sparkline([0, 0])).toBe('  ');
    expect(sparkline([])).toBe('');
  });
});
