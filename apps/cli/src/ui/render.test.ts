import { readFileSync } from 'node:fs';
import { tensorFrom } from '@tensorops/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliStream } from '../run/cli-io.js';
import { renderTensorTable, renderTensorView, terminalStyle } from './render.js';

const saved = process.env.FORCE_COLOR;
afterAll(() => {
  if (saved === undefined) delete process.env.FORCE_COLOR;
  else process.env.FORCE_COLOR = saved;
});

/** A terminal stdout stand-in that keeps what was written. */
function terminal(columns?: number): { stream: CliStream; written: () => string } {
  const chunks: string[] = [];
  const stream: CliStream = {
    isTTY: true,
    ...(columns === undefined ? {} : { columns }),
    write(chunk, callback) {
      chunks.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk));
      callback?.();
      return true;
    },
  };
  return { stream, written: () => chunks.join('') };
}

const t = tensorFrom(
  'float32',
  [2, 8],
  [1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -5, -6, -7, Number.NaN],
);

describe('renderTensorView (colour off)', () => {
  // First in this file on purpose: Ink is not loaded yet, so this shows that FORCE_COLOR=0 lands
  // in process.env before chalk reads it.
  it('NO_COLOR switches chalk off before Ink loads', async () => {
    process.env.FORCE_COLOR = '3';
    const out = terminal(40);
    await renderTensorView(t, 'result', { stdout: out.stream, env: { NO_COLOR: '1' } });
    expect(process.env.FORCE_COLOR).toBe('0');
    const { renderToString, Text } = await import('ink');
    const { createElement } = await import('react');
    expect(renderToString(createElement(Text, { color: 'red' }, 'x'))).toBe('x');
    expect(out.written()).toBe(
      [
        'result  float32  [2,8]  64 B',
        '[[ 1.,  2.,  3., ...,  6.,  7.,  8.],',
        ' [-1., -2., -3., ..., -6., -7., nan]]',
        'min -7.0  max 8.0  mean 0.53333333',
        'nan 1  +inf 0  -inf 0',
        // Four bins over [-7, 8]: -7..-4 | -3..-1 | 1..4 | 5..8.
        'hist █▆██',
        '',
      ].join('\n'),
    );
  });

  it('takes the width from stdout, 0 columns laying out for 80, and an explicit width first', async () => {
    const wide = terminal(0);
    await renderTensorView(t, 'result', { stdout: wide.stream, env: {}, color: false });
    const at80 = terminal(80);
    await renderTensorView(t, 'result', { stdout: at80.stream, env: {}, color: false });
    expect(wide.written()).toBe(at80.written());
    expect(wide.written().split('\n')[3]).toBe(
      'min -7.0  max 8.0  mean 0.53333333  nan 1  +inf 0  -inf 0',
    );
    const narrow = terminal(80);
    await renderTensorView(t, 'result', {
      stdout: narrow.stream,
      env: {},
      color: false,
      columns: 20,
    });
    expect(narrow.written().split('\n').slice(0, 3)).toEqual([
      'result  float32',
      '[2,8]  64 B',
      '[[ 1.,  2.,  3., ..…',
    ]);
  });

  it('--no-color, TERM=dumb and FORCE_COLOR=0 leave no escape sequence; TERM=dumb draws ASCII bars', async () => {
    for (const [env, color] of [
      [{}, false],
      [{ TERM: 'dumb' }, true],
      [{ FORCE_COLOR: '0' }, true],
    ] as const) {
      const out = terminal(80);
      const processEnv: Record<string, string | undefined> = {};
      await renderTensorView(t, 'result', { stdout: out.stream, env, color, processEnv });
      expect(out.written().includes('\u001b')).toBe(false);
      expect(processEnv.FORCE_COLOR).toBe('0');
    }
    const dumb = terminal(80);
    await renderTensorView(t, 'result', { stdout: dumb.stream, env: { TERM: 'dumb' } });
    expect(dumb.written().split('\n')[4]).toBe('hist #=##');
  });
});

describe('renderTensorTable', () => {
  it('writes the table once, with its title and totals', async () => {
    const out = terminal(60);
    await renderTensorTable(
      [
        { name: 'a', dtype: 'float32', shape: [2, 3], nbytes: 24, offset: 0 },
        { name: 'b', dtype: 'int64', shape: [5], nbytes: 40, offset: 24 },
      ],
      { stdout: out.stream, env: { NO_COLOR: '1' }, title: 'x.safetensors' },
    );
    expect(out.written()).toBe(
      [
        'x.safetensors',
        'name  dtype    shape  size  offset',
        'a     float32  [2,3]  24 B       0',
        'b     int64    [5]    40 B      24',
        '2 tensors  64 B total',
        '',
      ].join('\n'),
    );
  });
});

describe('terminalStyle', () => {
  it('colour unless --no-color, NO_COLOR (non-empty), TERM=dumb or FORCE_COLOR=0', () => {
    expect(terminalStyle({})).toEqual({ color: true, ascii: false });
    expect(terminalStyle({}, false)).toEqual({ color: false, ascii: false });
    expect(terminalStyle({ NO_COLOR: '1' })).toEqual({ color: false, ascii: false });
    expect(terminalStyle({ NO_COLOR: '' })).toEqual({ color: true, ascii: false });
    expect(terminalStyle({ TERM: 'dumb' })).toEqual({ color: false, ascii: true });
    expect(terminalStyle({ TERM: 'xterm-256color' })).toEqual({ color: true, ascii: false });
    expect(terminalStyle({ FORCE_COLOR: '0' })).toEqual({ color: false, ascii: false });
  });
});

describe('render.ts keeps Ink and React lazy', () => {
  it('has no static import of ink, react or a component', () => {
    const source = readFileSync(new URL('./render.ts', import.meta.url), 'utf8');
    const statics = [
      ...source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms),
    ].map((m) => m[1]);
    expect(statics).toEqual(['../run/cli-io.js', './layout.js']);
  });
});
