// Reads a pickle's operands. Every length is checked against the bytes left before anything is
// sliced or decoded, so a declared size never costs more than the input holds.

import { pickleError } from './pickle-error.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class PickleCursor {
  private readonly view: DataView;
  pos = 0;
  /** The opcode whose operands are being read, and where it starts, for messages. */
  opcode = 'opcode';
  opcodeAt = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get left(): number {
    return this.bytes.length - this.pos;
  }

  private fail(message: string): never {
    throw pickleError(`${this.opcode} at offset ${this.opcodeAt} ${message}`);
  }

  /** Checks that `n` more bytes exist; `n` may be any declared length. */
  private need(n: number | bigint): void {
    if (n > this.left) this.fail(`declares ${n} bytes, only ${this.left} remain`);
  }

  /** The bytes [pos, pos + n), after checking they exist. */
  take(n: number | bigint): Uint8Array {
    this.need(n);
    const start = this.pos;
    this.pos += Number(n);
    return this.bytes.subarray(start, this.pos);
  }

  /** Where the next `n` bytes start, once they are known to exist. */
  private at(n: number): number {
    this.need(n);
    this.pos += n;
    return this.pos - n;
  }

  u8(): number {
    return this.bytes[this.at(1)] as number;
  }

  u16(): number {
    return this.view.getUint16(this.at(2), true);
  }

  u32(): number {
    return this.view.getUint32(this.at(4), true);
  }

  u64(): bigint {
    return this.view.getBigUint64(this.at(8), true);
  }

  i32(): number {
    return this.view.getInt32(this.at(4), true);
  }

  /** A signed 4-byte length (BINSTRING, LONG4), which must not be negative. */
  length32(): number {
    const n = this.i32();
    if (n < 0) this.fail(`declares a negative length ${n}`);
    return n;
  }

  f64be(): number {
    return this.view.getFloat64(this.at(8), false);
  }

  /** A little-endian two's complement integer of `n` bytes, as LONG1 and LONG4 store it. */
  long(n: number): number | bigint {
    const bytes = this.take(n);
    if (n === 0) return 0;
    let hex = '';
    for (let i = n - 1; i >= 0; i--) hex += (bytes[i] as number).toString(16).padStart(2, '0');
    let value = BigInt(`0x${hex}`);
    if ((bytes[n - 1] as number) >= 0x80) value -= 1n << BigInt(8 * n);
    return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  }

  utf8(n: number | bigint): string {
    const bytes = this.take(n);
    try {
      return utf8.decode(bytes);
    } catch {
      this.fail('holds text that is not valid UTF-8');
    }
  }

  /** The text up to the next newline (GLOBAL's operands), which must be there. */
  line(): string {
    const end = this.bytes.indexOf(0x0a, this.pos);
    if (end < 0) this.fail('has no end of line');
    const text = this.utf8(end - this.pos);
    this.pos += 1;
    return text;
  }
}
