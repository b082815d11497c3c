import { describe, expect, it } from 'vitest';
import { packLines, printable, resolveColumns, truncateMiddle } from './layout.js';

describe('layout helpers', () => {
  it('resolveColumns: 0, negative, NaN or no width lay out for 80', () => {
    expect([undefined, 0, -3, Number.NaN, 0.5, 30, 132.7].map(resolveColumns)).toEqual([
      80, 80, 80, 80, 80, 30, 132,
    ]);
  });

  it('truncateMiddle keeps both ends and the exact width', () => {
    expect(truncateMiddle('model.layers.0.self_attn.q_proj.weight', 20)).toBe(
      'model.laye…oj.weight',
    );
    expect(truncateMiddle('abc', 3)).toBe('abc');
    expect(truncateMiddle('abcd', 3)).toBe('a…d');
    expect(truncateMiddle('abcd', 2)).toBe('a…');
    expect(truncateMiddle('abcd', 1)).toBe('…');
    expect(truncateMiddle('abcd', 0)).toBe('');
    expect(truncateMiddle('😀😀😀😀', 3)).toBe('😀…😀');
  });

  it('printable escapes C0, DEL and C1 controls, nothing else', () => {
    expect(printable('a\tb\u001b[0m\u007f\u0085é漢')).toBe('a\\x09b\\x1b[0m\\x7f\\x85é漢');
    expect(printable('model.embed\u0001')).toBe('model.embed\\x01');
    expect(printable('model.embed')).toBe('model.embed');
  });

  it('packLines wraps between items, never inside one', () => {
    const words = ['aaaa', 'bb', 'cccccc', 'd', 'eeeeeeeeeeee'];
    expect(packLines(words, (w) => w.length, 10)).toEqual([
      ['aaaa', 'bb'],
      ['cccccc', 'd'],
      ['eeeeeeeeeeee'],
    ]);
    expect(packLines(words, (w) => w.length, 100)).toEqual([words]);
    expect(packLines([], (w: string) => w.length, 10)).toEqual([]);
  });
});
