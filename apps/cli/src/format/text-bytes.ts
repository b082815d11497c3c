import { POW10 } from './powers-of-ten.js';

// A block of UTF-8 text built for output. Numbers and separators go straight into bytes, with no
// string per value; strings are gathered into one pending string, with whatever follows them,
// and encoded in one call when the block is taken or a number comes (the encoder's cost is per
// call, so one call per string would cost more than the strings).

const encoder = new TextEncoder();

export class TextBytes {
  private bytes: Uint8Array;
  private length = 0;
  /** Text after `length` not yet encoded: once a string is in, ASCII joins it there. */
  private pending = '';

  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array(capacity);
  }

  /** One ASCII character, by its code. */
  byte(code: number): void {
    if (this.pending !== '') {
      this.pending += String.fromCharCode(code);
      return;
    }
    this.reserve(1);
    this.bytes[this.length++] = code;
  }

  /** A string of ASCII characters only (separators, brackets, `nan`, exponents). */
  ascii(text: string): void {
    if (this.pending !== '') {
      this.pending += text;
      return;
    }
    this.reserve(text.length);
    const { bytes } = this;
    let at = this.length;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Any string, as UTF-8. */
  text(text: string): void {
    this.pending += text;
  }

  /** The decimal digits of a non-negative integer below 2^53, with leading zeros up to `minDigits`. */
  digits(n: number, minDigits = 1): void {
    this.flush();
    let count = 1;
    while (count < POW10.length && n >= (POW10[count] as number)) count++;
    const start = this.length;
    const end = start + Math.max(count, minDigits);
    this.reserve(end - start);
    const { bytes } = this;
    let at = end;
    let rest = n;
    for (; rest > 0x7fffffff; at--) {
      const q = Math.floor(rest / 10);
      bytes[at - 1] = 48 + (rest - q * 10);
      rest = q;
    }
    // The rest fits int32, whose division by a constant is cheap.
    for (let small = rest | 0; at > start; at--) {
      const q = (small / 10) | 0;
      bytes[at - 1] = 48 + (small - q * 10);
      small = q;
    }
    this.length = end;
  }

  /** The bytes written, in a new array; the block starts empty again. */
  take(): Uint8Array {
    this.flush();
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    return out;
  }

  /** The text written, as a string (ASCII only); the block starts empty again. */
  takeAscii(): string {
    let out = '';
    for (const code of this.take()) out += String.fromCharCode(code);
    return out;
  }

  private flush(): void {
    if (this.pending === '') return;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.reserve(this.pending.length * 3);
    this.length += encoder.encodeInto(this.pending, this.bytes.subarray(this.length)).written;
    this.pending = '';
  }

  private reserve(count: number): void {
    if (this.length + count <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + count));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}
