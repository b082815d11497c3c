import { afterAll, describe, expect, it } from 'vitest';

// chalk fixes its colour level when Ink is first imported: give the colour-on test one.
const saved = process.env.FORCE_COLOR;
process.env.FORCE_COLOR = '1';
const { render } = await import('ink-testing-library');
const { TensorTable } = await import('./tensor-table.js');
type Entry = import('./tensor-table.js').TensorEntry;
afterAll(() => {
  if (saved === undefined) delete process.env.FORCE_COLOR;
  else process.env.FORCE_COLOR = saved;
});

const entries: Entry[] = [
  {
    name: 'model.embed_tokens.weight',
    dtype: 'bfloat16',
    shape: [32000, 4096],
    nbytes: 262144000,
    offset: 0,
  },
  {
    name: 'model.layers.0.self_attn.q_proj.weight',
    dtype: 'bfloat16',
    shape: [4096, 4096],
    nbytes: 33554432,
    offset: 262144000,
  },
  { name: 'lm_head.bias', dtype: 'float32', shape: [32000], nbytes: 128000, offset: 295698432 },
];

function frame(
  columns: number | undefined,
  options: { color?: boolean; title?: string; list?: Entry[] } = {},
) {
  const { lastFrame } = render(
    <TensorTable
      entries={options.list ?? entries}
      title={options.title ?? 'model.safetensors'}
      columns={columns}
      color={options.color ?? false}
    />,
  );
  return lastFrame() ?? '';
}

describe('TensorTable', () => {
  it('aligns columns (sizes and offsets to the right) and totals count and bytes', () => {
    expect(frame(100)).toBe(
      [
        'model.safetensors',
        'name                                    dtype     shape              size     offset',
        'model.embed_tokens.weight               bfloat16  [32000,4096]  250.0 MiB          0',
        'model.layers.0.self_attn.q_proj.weight  bfloat16  [4096,4096]    32.0 MiB  262144000',
        'lm_head.bias                            float32   [32000]       125.0 KiB  295698432',
        '3 tensors  282.1 MiB total',
      ].join('\n'),
    );
  });

  it('80 columns: long names shortened in the middle, keeping both ends', () => {
    expect(frame(80)).toBe(
      [
        'model.safetensors',
        'name                                dtype     shape              size     offset',
        'model.embed_tokens.weight           bfloat16  [32000,4096]  250.0 MiB          0',
        'model.layers.0.se…tn.q_proj.weight  bfloat16  [4096,4096]    32.0 MiB  262144000',
        'lm_head.bias                        float32   [32000]       125.0 KiB  295698432',
        '3 tensors  282.1 MiB total',
      ].join('\n'),
    );
  });

  it('narrow terminals drop offset, then size, then shape, before names get too short', () => {
    expect(frame(60)).toBe(
      [
        'model.safetensors',
        'name                       dtype     shape              size',
        'model.embed_tokens.weight  bfloat16  [32000,4096]  250.0 MiB',
        'model.layers…_proj.weight  bfloat16  [4096,4096]    32.0 MiB',
        'lm_head.bias               float32   [32000]       125.0 KiB',
        '3 tensors  282.1 MiB total',
      ].join('\n'),
    );
    expect(frame(30)).toBe(
      [
        'model.safetensors',
        'name                  dtype',
        'model.embe…ns.weight  bfloat16',
        'model.laye…oj.weight  bfloat16',
        'lm_head.bias          float32',
        '3 tensors  282.1 MiB total',
      ].join('\n'),
    );
    expect(frame(20)).toBe(
      [
        'model.safetensors',
        'name',
        'model.embe…ns.weight',
        'model.laye…oj.weight',
        'lm_head.bias',
        '3 tensors',
        '282.1 MiB total',
      ].join('\n'),
    );
    for (const width of [60, 30, 20]) {
      for (const line of frame(width).split('\n'))
        expect([...line].length).toBeLessThanOrEqual(width);
    }
  });

  it('a 0-column terminal lays out for 80', () => {
    expect(frame(0)).toBe(frame(80));
    expect(frame(undefined)).toBe(frame(80));
  });

  it('no offset column when the format has none; singular and empty totals', () => {
    const list = entries.slice(2).map(({ offset: _, ...e }) => e);
    expect(frame(80, { list })).toBe(
      [
        'model.safetensors',
        'name          dtype    shape         size',
        'lm_head.bias  float32  [32000]  125.0 KiB',
        '1 tensor  125.0 KiB total',
      ].join('\n'),
    );
    expect(frame(80, { list: [] })).toBe('model.safetensors\n0 tensors  0 B total');
  });

  it('a tensor without a name or an offset (.npy, a deflated .npz member) shows -', () => {
    const list = [
      { name: null, dtype: 'float64', shape: [3], nbytes: 24, offset: null },
      { name: 'b', dtype: 'int8', shape: [], nbytes: 1, offset: 128 },
    ];
    expect(frame(80, { list, title: 'x' })).toBe(
      [
        'x',
        'name  dtype    shape  size  offset',
        '-     float64  [3]    24 B       -',
        'b     int8     []      1 B     128',
        '2 tensors  25 B total',
      ].join('\n'),
    );
  });

  it('names with control characters are escaped', () => {
    const list = [{ name: 'a\nb\u001b[2J', dtype: 'int8', shape: [1], nbytes: 1, offset: 0 }];
    expect(frame(80, { list }).split('\n')[2]).toBe('a\\x0ab\\x1b[2J  int8   [1]     1 B       0');
  });

  it('colour: dim header and labels, yellow totals only when on', () => {
    const list = entries.slice(2);
    expect(frame(80, { list }).includes('\u001b')).toBe(false);
    const on = frame(80, { list, color: true });
    expect(on.split('\n')).toEqual([
      '\u001b[1mmodel.safetensors\u001b[22m',
      '\u001b[2mname        \u001b[22m  \u001b[2mdtype  \u001b[22m  \u001b[2mshape  \u001b[22m  \u001b[2m     size\u001b[22m  \u001b[2m   offset\u001b[22m',
      'lm_head.bias  float32  [32000]  125.0 KiB  295698432',
      '\u001b[33m1\u001b[39m\u001b[2m tensor\u001b[22m  \u001b[33m125.0 KiB\u001b[39m\u001b[2m total\u001b[22m',
    ]);
  });
});
