import { describe, expect, it } from 'vitest';
import { loadFloat16Table } from '../test/fixtures.js';
import {
  bfloat16ToNumber,
  float16ToNumber,
  numberToBfloat16,
  numberToFloat16,
} from './float-bits.js';

const hex4 = (n: number): string => `0x${n.toString(16).padStart(4, '0')}`;

describe('float16', () => {
  it('numberToFloat16 matches numpy astype(float16) bit for bit (fixture)', () => {
    const { values, float16 } = loadFloat16Table();
    const doubles = new Float64Array(
      values.data.buffer,
      values.data.byteOffset,
      values.data.byteLength / 8,
    );
    const halves = new Uint16Array(
      float16.data.buffer,
      float16.data.byteOffset,
      float16.data.byteLength / 2,
    );
    expect(doubles.length).toBeGreaterThan(300);
    const mismatches: string[] = [];
    doubles.forEach((v, i) => {
      const got = numberToFloat16(v);
      if (got !== halves[i])
        mismatches.push(`${v}: got ${hex4(got)}, numpy ${hex4(halves[i] as number)}`);
    });
    expect(mismatches).toEqual([]);
  });

  it('every non-NaN bit pattern survives float16 -> number -> float16', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const v = float16ToNumber(bits);
      const nan = (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;
      if (nan) {
        expect(Number.isNaN(v)).toBe(true);
        continue;
      }
      if (numberToFloat16(v) !== bits) expect(hex4(numberToFloat16(v))).toBe(hex4(bits));
    }
  });

  it('decodes the landmarks exactly', () => {
    expect(float16ToNumber(0x3c00)).toBe(1);
    expect(float16ToNumber(0x7bff)).toBe(65504);
    expect(float16ToNumber(0x0001)).toBe(2 ** -24);
    expect(float16ToNumber(0x0400)).toBe(2 ** -14);
    expect(float16ToNumber(0x3555)).toBe(0.333251953125);
    expect(Object.is(float16ToNumber(0x8000), -0)).toBe(true);
    expect(float16ToNumber(0xfc00)).toBe(Number.NEGATIVE_INFINITY);
    expect(numberToFloat16(Number.NaN)).toBe(0x7e00);
  });
});

describe('bfloat16', () => {
  it('every non-NaN bit pattern survives bfloat16 -> number -> bfloat16', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const v = bfloat16ToNumber(bits);
      const nan = (bits & 0x7f80) === 0x7f80 && (bits & 0x7f) !== 0;
      if (nan) {
        expect(Number.isNaN(v)).toBe(true);
        // Converting back yields a quiet NaN (the quiet bit 0x40 set).
        const back = numberToBfloat16(v);
        expect((back & 0x7fc0) === 0x7fc0).toBe(true);
        continue;
      }
      if (numberToBfloat16(v) !== bits) expect(hex4(numberToBfloat16(v))).toBe(hex4(bits));
    }
  });

  it('rounds to nearest even and overflows to infinity', () => {
    expect(numberToBfloat16(1)).toBe(0x3f80);
    expect(numberToBfloat16(1 + 2 ** -8)).toBe(0x3f80); // tie, even stays
    expect(numberToBfloat16(1 + 3 * 2 ** -8)).toBe(0x3f82); // tie, odd rounds up
    expect(numberToBfloat16(1 + 2 ** -8 + 2 ** -20)).toBe(0x3f81); // above the tie
    expect(numberToBfloat16(-0)).toBe(0x8000);
    expect(numberToBfloat16(3.4028234663852886e38)).toBe(0x7f80);
    expect(numberToBfloat16(Number.NEGATIVE_INFINITY)).toBe(0xff80);
    expect(numberToBfloat16(1e-45)).toBe(0x0000); // far below the smallest bfloat16 subnormal
  });

  it('rounds through float32 first, as torch (c10::BFloat16) does', () => {
    // 1 + 2^-8 + 2^-30 is above the bfloat16 tie, but float32 rounds it onto the tie first.
    expect(numberToBfloat16(1 + 2 ** -8 + 2 ** -30)).toBe(
      numberToBfloat16(Math.fround(1 + 2 ** -8 + 2 ** -30)),
    );
    expect(numberToBfloat16(1 + 2 ** -8 + 2 ** -30)).toBe(0x3f80);
  });
});
