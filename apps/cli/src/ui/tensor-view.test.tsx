import { createTensor, type Tensor, tensorFrom } from '@tensorops/core';
import { afterAll, describe, expect, it } from 'vitest';

// chalk (inside Ink) fixes its colour level when first imported, from the environment; the
// test worker's stdout is no terminal, so the colour-on frames need FORCE_COLOR before Ink loads.
const saved = process.env.FORCE_COLOR;
process.env.FORCE_COLOR = '1';
const { render } = await import('ink-testing-library');
const { TensorView, tensorViewLines } = await import('./tensor-view.js');
afterAll(() => {
  if (saved === undefined) delete process.env.FORCE_COLOR;
  else process.env.FORCE_COLOR = saved;
});

// Every expected preview below is numpy 2.4's
// np.array2string(a, separator=', ', threshold=0, edgeitems=3), checked when the test was written.

const ESC = '\u001b';

function frame(
  t: Tensor,
  options: { columns?: number; color?: boolean; ascii?: boolean; label?: string } = {},
) {
  const { lastFrame } = render(
    <TensorView
      tensor={t}
      label={options.label ?? 'result'}
      columns={options.columns ?? 80}
      color={options.color ?? false}
      ascii={options.ascii ?? false}
    />,
  );
  return lastFrame() ?? '';
}

/** numpy `<U{width}`: UTF-32 code points, NUL padded. */
function unicodeTensor(strings: readonly string[], width: number): Tensor {
  const data = new Uint8Array(strings.length * width * 4);
  const view = new DataView(data.buffer);
  strings.forEach((s, i) => {
    [...s].forEach((ch, j) => {
      view.setUint32((i * width + j) * 4, ch.codePointAt(0) as number, true);
    });
  });
  return createTensor(`U${width}`, [strings.length], data);
}

const twoD = tensorFrom(
  'int32',
  [8, 10],
  Array.from({ length: 80 }, (_, i) => i * 3 - 40),
);
const withNonFinite = tensorFrom(
  'float64',
  [6],
  [1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2, Number.NaN],
);

describe('TensorView frames (colour off, 80 columns)', () => {
  it('1-D short float32: aligned values, stats, a 2-bin histogram', () => {
    expect(frame(tensorFrom('float32', [4], [1, 2.5, -3, 4]))).toBe(
      [
        'result  float32  [4]  16 B',
        '[ 1. ,  2.5, -3. ,  4. ]',
        'min -3.0  max 4.0  mean 1.125  nan 0  +inf 0  -inf 0',
        'hist ▃█',
      ].join('\n'),
    );
  });

  it('2-D summarised with ... rows and columns (edgeitems=3)', () => {
    expect(frame(twoD)).toBe(
      [
        'result  int32  [8,10]  320 B',
        '[[-40, -37, -34, ..., -19, -16, -13],',
        ' [-10,  -7,  -4, ...,  11,  14,  17],',
        ' [ 20,  23,  26, ...,  41,  44,  47],',
        ' ...,',
        ' [110, 113, 116, ..., 131, 134, 137],',
        ' [140, 143, 146, ..., 161, 164, 167],',
        ' [170, 173, 176, ..., 191, 194, 197]]',
        'min -40  max 197  mean 78.5',
        // np.histogram(a, 9) = [9 9 9 9 8 9 9 9 9]: 8/9 still rounds up to the full block.
        'hist █████████',
      ].join('\n'),
    );
  });

  it('float16 shown as numbers (numpy switches float16 to scientific at 1e3)', () => {
    const t = tensorFrom('float16', [2, 3], [0.1, 0.2, 0.3333, 1.5, -2, 65504]);
    expect(frame(t)).toBe(
      [
        'result  float16  [2,3]  12 B',
        '[[ 9.998e-02,  2.000e-01,  3.333e-01],',
        ' [ 1.500e+00, -2.000e+00,  6.550e+04]]',
        'min -2.0  max 6.55e+04  mean 10917.356  nan 0  +inf 0  -inf 0',
        'hist █ ▂',
      ].join('\n'),
    );
  });

  it('bfloat16 shown as numbers with their shortest digits', () => {
    const t = tensorFrom('bfloat16', [3], [0.1, 1.5, -2]);
    expect(frame(t)).toBe(
      [
        'result  bfloat16  [3]  6 B',
        '[ 0.1,  1.5, -2. ]',
        'min -2.0  max 1.5  mean -0.13330078  nan 0  +inf 0  -inf 0',
        'hist ▄█',
      ].join('\n'),
    );
  });

  it('int64 beyond 2^53: exact values and exact min/max', () => {
    const t = tensorFrom(
      'int64',
      [3],
      [9007199254740993n, -9223372036854775808n, 9223372036854775807n],
    );
    expect(frame(t)).toBe(
      [
        'result  int64  [3]  24 B',
        '[    9007199254740993, -9223372036854775808,  9223372036854775807]',
        'min -9223372036854775808  max 9223372036854775807  mean 3.0023998e+15',
        'hist ▄█',
      ].join('\n'),
    );
  });

  it('NaN and ±Inf are counted, and kept out of min/max/mean/histogram', () => {
    expect(frame(withNonFinite)).toBe(
      [
        'result  float64  [6]  48 B',
        '[  1.,  nan,  inf, -inf,   2.,  nan]',
        'min 1.0  max 2.0  mean 1.5  nan 2  +inf 1  -inf 1',
        'hist █ █',
      ].join('\n'),
    );
  });

  it('all NaN: counts only, no histogram', () => {
    const t = tensorFrom('float32', [2], [Number.NaN, Number.NaN]);
    expect(frame(t)).toBe(
      ['result  float32  [2]  8 B', '[nan, nan]', 'nan 2  +inf 0  -inf 0'].join('\n'),
    );
  });

  it('0-size: [] and no statistics', () => {
    expect(frame(tensorFrom('float32', [0, 3], []))).toBe('result  float32  [0,3]  0 B\n[]');
  });

  it('scalar: the value as numpy prints a scalar, no statistics', () => {
    expect(frame(tensorFrom('float64', [], [3.25]))).toBe('result  float64  []  8 B\n3.25');
  });

  it('string dtype: Python reprs, no statistics', () => {
    expect(frame(unicodeTensor(['a', 'bc', "it's"], 4))).toBe(
      "result  U4  [3]  48 B\n['a', 'bc', \"it's\"]",
    );
  });

  it('bool: True/False, stats as 0/1, one bin per value', () => {
    expect(frame(tensorFrom('bool', [5], [true, false, true, true, false]))).toBe(
      [
        'result  bool  [5]  5 B',
        '[ True, False,  True,  True, False]',
        'min 0  max 1  mean 0.6',
        'hist ▆█',
      ].join('\n'),
    );
  });

  it('complex: numpy complex layout, no statistics', () => {
    const data = new Uint8Array(16);
    const view = new DataView(data.buffer);
    [1, 2, -1.5, -0.25].forEach((x, i) => {
      view.setFloat32(i * 4, x, true);
    });
    expect(frame(createTensor('complex64', [2], data))).toBe(
      'result  complex64  [2]  16 B\n[ 1. +2.j  , -1.5-0.25j]',
    );
  });

  it('float8 shows its raw bits and says so', () => {
    const t = createTensor('float8_e4m3fn', [2], Uint8Array.of(0x38, 0xb8));
    expect(frame(t)).toBe('result  float8_e4m3fn (raw bits)  [2]  2 B\n[ 56, 184]');
  });

  it('a label with control characters cannot drive the terminal', () => {
    const t = tensorFrom('int8', [], [7]);
    expect(frame(t, { label: 'a\u001b[31mb\nc' })).toBe('a\\x1b[31mb\\x0ac  int8  []  1 B\n7');
  });
});

describe('TensorView on narrow and zero-width terminals', () => {
  it('30 columns: rows cut with …, header and stats wrapped between fields', () => {
    const out = frame(twoD, { columns: 30, label: 'gather(data.npy, idx.npy)' });
    expect(out).toBe(
      [
        'gather(data.npy, idx.npy)',
        'int32  [8,10]  320 B',
        '[[-40, -37, -34, ..., -19, -1…',
        ' [-10,  -7,  -4, ...,  11,  1…',
        ' [ 20,  23,  26, ...,  41,  4…',
        ' ...,',
        ' [110, 113, 116, ..., 131, 13…',
        ' [140, 143, 146, ..., 161, 16…',
        ' [170, 173, 176, ..., 191, 19…',
        'min -40  max 197  mean 78.5',
        'hist █████████',
      ].join('\n'),
    );
    for (const line of out.split('\n')) expect([...line].length).toBeLessThanOrEqual(30);
  });

  it('30 columns with non-finite values: the counts move to their own line', () => {
    expect(frame(withNonFinite, { columns: 30 })).toBe(
      [
        'result  float64  [6]  48 B',
        '[  1.,  nan,  inf, -inf,   2.…',
        'min 1.0  max 2.0  mean 1.5',
        'nan 2  +inf 1  -inf 1',
        'hist █ █',
      ].join('\n'),
    );
  });

  it('a long label is cut, never wrapped', () => {
    const out = frame(tensorFrom('int8', [2], [1, 2]), { columns: 20, label: 'x'.repeat(50) });
    expect(out.split('\n')[0]).toBe(`${'x'.repeat(19)}…`);
  });

  it('columns 0 or undefined lay out for 80', () => {
    const wide = tensorFrom(
      'float64',
      [40],
      Array.from({ length: 40 }, (_, i) => i / 7),
    );
    const at80 = frame(wide, { columns: 80 });
    expect(frame(wide, { columns: 0 })).toBe(at80);
    const { lastFrame } = render(<TensorView tensor={wide} label="result" color={false} />);
    expect(lastFrame()).toBe(at80);
    expect(at80.split('\n')[2]).toBe(
      'min 0.0  max 5.571428571428571  mean 2.7857143  nan 0  +inf 0  -inf 0',
    );
  });
});

describe('TensorView colour', () => {
  const t = tensorFrom('float32', [4], [1, 2.5, Number.NaN, 4]);

  it('off: not a single escape sequence, even though chalk could colour', () => {
    const out = frame(t, { color: false });
    expect(out.includes(ESC)).toBe(false);
    expect(out).toBe(
      [
        'result  float32  [4]  16 B',
        '[1. , 2.5, nan, 4. ]',
        'min 1.0  max 4.0  mean 2.5  nan 1  +inf 0  -inf 0',
        'hist ▄█',
      ].join('\n'),
    );
  });

  it('on: bold label, cyan dtype, dim labels, yellow numbers, red for a NaN count, green bars', () => {
    const e = (code: number, text: string, end: number): string =>
      `${ESC}[${code}m${text}${ESC}[${end}m`;
    const stat = (label: string, value: string, code = 33): string =>
      `${e(2, label, 22)} ${e(code, value, 39)}`;
    expect(frame(t, { color: true })).toBe(
      [
        `${e(1, 'result', 22)}  ${e(36, 'float32', 39)}  [4]  16 B`,
        '[1. , 2.5, nan, 4. ]',
        [
          stat('min', '1.0'),
          stat('max', '4.0'),
          stat('mean', '2.5'),
          stat('nan', '1', 31),
          stat('+inf', '0'),
          stat('-inf', '0'),
        ].join('  '),
        `${e(2, 'hist', 22)} ${e(32, '▄█', 39)}`,
      ].join('\n'),
    );
  });

  it('TERM=dumb glyphs: ASCII histogram bars', () => {
    expect(frame(withNonFinite, { ascii: true }).split('\n')[3]).toBe('hist # #');
    // Counts 2, 4, 6, 8, 10 of the values 0..4: five bins, one per integer.
    const values = [0, 1, 2, 3, 4].flatMap((v) => new Array<number>(2 * (v + 1)).fill(v));
    const ramp = tensorFrom('int32', [values.length], values);
    expect(frame(ramp, { ascii: true }).split('\n')[3]).toBe('hist _.-=#');
    expect(frame(ramp).split('\n')[3]).toBe('hist ▂▄▅▇█');
  });
});

describe('tensorViewLines', () => {
  it('caps the preview and says so', () => {
    const t = tensorFrom('int8', [7, 7, 7], new Array(343).fill(1));
    const lines = tensorViewLines({
      tensor: t,
      label: 'x',
      columns: 80,
      color: false,
      maxPreviewLines: 4,
    });
    expect(lines.slice(1, 6).map((l) => l.map((s) => s.text).join(''))).toEqual([
      '[[[1, 1, 1, ..., 1, 1, 1],',
      '  [1, 1, 1, ..., 1, 1, 1],',
      '  [1, 1, 1, ..., 1, 1, 1],',
      '  ...,',
      '… (first 4 lines)',
    ]);
  });
});
