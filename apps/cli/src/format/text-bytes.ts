// A block of UTF-8 text written straight into bytes: separators and numbers go in without a
// string per value, so a large tensor's text costs no string churn and no encoding pass.

const encoder = new TextEncoder();

/** Powers of ten that float64 holds exactly. */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

export class TextBytes {
  private bytes: Uint8Array;
  /** Bytes written so far. */
  length = 0;

  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array(capacity);
  }

  /** One byte (an ASCII character code). */
  byte(code: number): void {
    this.reserve(1);
    this.bytes[this.length++] = code;
  }

  /** A string of ASCII characters only (separators, brackets, `nan`, exponents). */
  ascii(text: string): void {
    this.reserve(text.length);
    const { bytes } = this;
    let at = this.length;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Any string, as UTF-8. */
  text(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.reserve(text.length * 3);
    this.length += encoder.encodeInto(text, this.bytes.subarray(this.length)).written;
  }

  /** The decimal digits of a non-negative integer below 2^53, with leading zeros up to `minDigits`. */
  digits(n: number, minDigits = 1): void {
    let count = 1;
    while (count < POW10.length && n >= (POW10[count] as number)) count++;
    const width = Math.max(count, minDigits);
    this.reserve(width);
    const { bytes } = this;
    const end = this.length + width;
    let rest = n;
    for (let at = end - 1; at >= this.length; at--) {
      const q = Math.floor(rest / 10);
      bytes[at] = 48 + rest - q * 10;
      rest = q;
    }
    this.length = end;
  }

  /** The bytes written, in a new array; the block starts empty again. */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    return out;
  }

  /** The text written, as a string (ASCII only); the block starts empty again. */
  takeAscii(): string {
    let out = '';
    for (let i = 0; i < this.length; i++) out += String.fromCharCode(this.bytes[i] as number);
    this.length = 0;
    return out;
  }

  private reserve(count: number): void {
    if (this.length + count <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + count));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}
