import { describe, expect, it } from 'vitest';
import { looksLike } from '../src/looks-like.js';

const bytes = (...b: number[]) => Uint8Array.from(b);
const ascii = (text: string) => new TextEncoder().encode(text);

describe('looksLike', () => {
  it('names the kinds of file taken for tensor files, from their first bytes', () => {
    expect(looksLike(bytes())).toBe('it is empty');
    expect(looksLike(bytes(0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8))).toBe(
      'it looks like a zip archive',
    );
    expect(looksLike(bytes(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0))).toBe('it looks like gzip data');
    expect(looksLike(bytes(0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9))).toBe(
      'it looks like a Python pickle',
    );
    expect(looksLike(ascii('GGUF\u0003\u0000\u0000\u0000\u0000'))).toBe(
      'it looks like a GGUF file',
    );
    expect(looksLike(bytes(0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe(
      'it looks like an HDF5 file',
    );
    expect(looksLike(bytes(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0))).toBe(
      'it looks like an ELF executable',
    );
    expect(looksLike(ascii('root:x:0:'))).toBe('it looks like text');
    expect(looksLike(ascii('  {"weig'))).toBe('it looks like JSON text');
    expect(looksLike(ascii('<!DOCTYP'))).toBe('it looks like HTML or XML text');
  });

  it('says nothing of bytes it does not know', () => {
    expect(looksLike(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0))).toBeUndefined();
    expect(looksLike(bytes(0x93, 0x4f, 0x55, 0x4d, 0x50, 0x59))).toBeUndefined();
    expect(looksLike(bytes(0x80, 0x01, 0x41))).toBeUndefined();
  });
});
