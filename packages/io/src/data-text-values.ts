// The values of data text stored in their dtype as they are read, in a buffer that doubles: a
// float rounded once from its decimal (decimal-rounding.ts), an integer exactly or refused.

import {
  createTensor,
  type Dtype,
  dtypeSize,
  numberToBfloat16,
  numberToFloat16,
  type Tensor,
  TensorOpsError,
} from '@tensorops/core';
import { integerRange } from '@tensorops/core/internal';
import { BFLOAT16, FLOAT16, FLOAT32, roundDecimal } from './decimal-rounding.js';
import type { DecimalToken, TokenKind } from './decimal-token.js';

/** The dtypes data text is read as (numpy.loadtxt's numeric ones, bfloat16 as ml_dtypes has it). */
export const DATA_TEXT_DTYPES = [
  'float64',
  'float32',
  'float16',
  'bfloat16',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
] as const satisfies readonly Dtype[];

export type DataTextDtype = (typeof DATA_TEXT_DTYPES)[number];
type IntegerTextDtype = Exclude<DataTextDtype, 'float64' | 'float32' | 'float16' | 'bfloat16'>;

/** Digits of the largest 64-bit magnitude (18446744073709551615): more is out of every range. */
const MAX_INTEGER_DIGITS = 20;

export class TextValues {
  private bytes = new Uint8Array(1024);
  private view = new DataView(this.bytes.buffer);
  private length = 0;
  private readonly size: number;
  private readonly range: readonly [bigint, bigint] | undefined;

  constructor(readonly dtype: DataTextDtype) {
    this.size = dtypeSize(dtype);
    this.range = isInteger(dtype) ? integerRange(dtype) : undefined;
  }

  /** Stores the value of a finished token; returns what is wrong with it, or undefined. */
  push(token: DecimalToken, kind: Exclude<TokenKind, 'invalid'>): string | undefined {
    const at = this.length * this.size;
    if (at + this.size > this.bytes.length) this.grow();
    if (this.range !== undefined) {
      if (kind !== 'integer') return `is not an integer (${this.dtype})`;
      const value = token.toInteger(MAX_INTEGER_DIGITS);
      const [min, max] = this.range;
      if (value === undefined || value < min || value > max) {
        return `is out of range for ${this.dtype} [${min}, ${max}]`;
      }
      this.storeInteger(at, value);
    } else this.storeFloat(at, token, kind);
    this.length++;
    return undefined;
  }

  /** The values read, as a tensor of `shape` (which the caller has checked holds them all). */
  tensor(shape: readonly number[]): Tensor {
    return createTensor(this.dtype, shape, this.bytes.slice(0, this.length * this.size));
  }

  private storeInteger(at: number, value: bigint | number): void {
    const v = this.view;
    const n = Number(value);
    switch (this.dtype) {
      case 'int8':
        v.setInt8(at, n);
        break;
      case 'uint8':
        v.setUint8(at, n);
        break;
      case 'int16':
        v.setInt16(at, n, true);
        break;
      case 'uint16':
        v.setUint16(at, n, true);
        break;
      case 'int32':
        v.setInt32(at, n, true);
        break;
      case 'uint32':
        v.setUint32(at, n, true);
        break;
      case 'int64':
        v.setBigInt64(at, BigInt(value), true);
        break;
      default:
        v.setBigUint64(at, BigInt(value), true);
    }
  }

  private storeFloat(at: number, token: DecimalToken, kind: FloatKind): void {
    const v = this.view;
    const sign = token.negative ? 1 : 0;
    if (kind === 'nan') {
      // The quiet NaN with the token's sign, as Python's float('-nan') has it.
      if (this.dtype === 'float64') v.setUint32(at + 4, ((sign << 31) | 0x7ff80000) >>> 0, true);
      else if (this.dtype === 'float32') v.setUint32(at, ((sign << 31) | 0x7fc00000) >>> 0, true);
      else v.setUint16(at, (sign << 15) | (this.dtype === 'float16' ? 0x7e00 : 0x7fc0), true);
      return;
    }
    if (this.dtype === 'float64') {
      v.setFloat64(at, kind === 'infinity' ? signed(token, Infinity) : token.toFloat64(), true);
      return;
    }
    const format =
      this.dtype === 'float32' ? FLOAT32 : this.dtype === 'float16' ? FLOAT16 : BFLOAT16;
    const value = kind === 'infinity' ? signed(token, Infinity) : roundDecimal(token, format);
    // `value` is held exactly by the dtype, so none of these conversions rounds.
    if (this.dtype === 'float32') v.setFloat32(at, value, true);
    else if (this.dtype === 'float16') v.setUint16(at, numberToFloat16(value), true);
    else v.setUint16(at, numberToBfloat16(value), true);
  }

  private grow(): void {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(this.bytes.length * 2);
    } catch (cause) {
      // The values read so far are in memory: what the input holds, never what a header claims.
      throw new TensorOpsError(
        'E_SHAPE',
        `more than ${this.length} values: too many to hold in memory`,
        { cause },
      );
    }
    bytes.set(this.bytes);
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer);
  }
}

type FloatKind = Exclude<TokenKind, 'invalid'>;

function signed(token: DecimalToken, magnitude: number): number {
  return token.negative ? -magnitude : magnitude;
}

function isInteger(dtype: DataTextDtype): dtype is IntegerTextDtype {
  return dtype[0] === 'i' || dtype[0] === 'u';
}
