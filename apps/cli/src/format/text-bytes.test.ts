import { describe, expect, it } from 'vitest';
import { TextBytes } from './text-bytes.js';

const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe('TextBytes', () => {
  it('writes integers up to 2^53 digit for digit, zero-padded to a minimum width', () => {
    const out = new TextBytes(4);
    for (const n of [0, 7, 10, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 5, 2 ** 53 - 1]) {
      out.digits(n);
      out.byte(0x20);
    }
    out.digits(5, 3);
    out.digits(123, 2);
    expect(decode(out.take())).toBe(
      '0 7 10 2147483647 2147483648 4294967301 9007199254740991 005123',
    );
  });

  it('keeps the order of bytes, numbers and strings, in UTF-8, across growth', () => {
    const out = new TextBytes(2);
    out.ascii('[');
    out.text('é€😀');
    out.byte(0x2c);
    out.digits(42);
    out.ascii(',"');
    out.text('plain');
    out.byte(0x22);
    const bytes = out.take();
    expect(decode(bytes)).toBe('[é€😀,42,"plain"');
    expect(bytes.byteLength).toBe(1 + 2 + 3 + 4 + 1 + 2 + 2 + 5 + 1);
  });

  it('starts empty again after each take, and hands out arrays it no longer writes', () => {
    const out = new TextBytes();
    out.ascii('first');
    const first = out.take();
    out.ascii('xx');
    expect(decode(first)).toBe('first');
    expect(decode(out.take())).toBe('xx');
    expect(out.take().byteLength).toBe(0);
    out.ascii('1.5e-05');
    expect(out.takeAscii()).toBe('1.5e-05');
  });
});
