import { describe, expect, it } from 'vitest';
import { chooseFormat } from './output-format.js';

describe('chooseFormat', () => {
  it('takes the extension, .txt as tsv, .npy for a name without one', () => {
    expect(chooseFormat({ json: false, path: 'a/rows.CSV' })).toBe('csv');
    expect(chooseFormat({ json: false, path: 'rows.txt' })).toBe('tsv');
    expect(chooseFormat({ json: false, path: 'x.safetensors' })).toBe('safetensors');
    expect(chooseFormat({ json: false, path: '/dev/fd/3' })).toBe('npy');
    expect(chooseFormat({ json: false, path: 'dir.v2/out' })).toBe('npy');
  });

  it('lets --format and --json decide, and leaves standard output to its default', () => {
    expect(chooseFormat({ json: false })).toBeUndefined();
    expect(chooseFormat({ json: true })).toBe('json');
    expect(chooseFormat({ format: 'tsv', json: false })).toBe('tsv');
    expect(chooseFormat({ format: 'npy', json: false, path: 'x.bin' })).toBe('npy');
    expect(chooseFormat({ format: 'csv', json: false, path: 'x.txt' })).toBe('csv');
    expect(chooseFormat({ format: 'txt', json: false })).toBe('tsv');
    expect(chooseFormat({ format: 'txt', json: false, path: 'x.txt' })).toBe('tsv');
    expect(chooseFormat({ format: 'json', json: true, path: 'x.json' })).toBe('json');
  });

  it('refuses unknown extensions and formats, and contradictions, as usage errors', () => {
    const usage = (f: () => unknown, message: RegExp) =>
      expect(f).toThrow(
        expect.objectContaining({ code: 'E_USAGE', message: expect.stringMatching(message) }),
      );
    usage(
      () => chooseFormat({ json: false, path: 'x.pt' }),
      /unknown extension '\.pt'; known: \.npy/,
    );
    usage(() => chooseFormat({ format: 'xml', json: false }), /--format takes one of/);
    usage(() => chooseFormat({ format: 'csv', json: true }), /--json contradicts --format csv/);
    usage(
      () => chooseFormat({ json: true, path: 'x.npy' }),
      /--json contradicts the extension of x\.npy/,
    );
    usage(() => chooseFormat({ format: 'json', json: false, path: 'x.txt' }), /contradicts/);
  });
});
