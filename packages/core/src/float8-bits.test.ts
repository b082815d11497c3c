import { describe, expect, it } from 'vitest';
import { readFixture } from '../test/fixtures.js';
import {
  bfloat16ToFloat32Bits,
  type Float8Dtype,
  float8ToFloat32Bits,
  float8ToNumber,
  isFloat8Dtype,
} from './float-bits.js';

// Written by scripts/fixtures/safetensors.py from the formats' definitions (Python floats,
// struct.pack), independently of the integer decoders under test.
type Tables = Record<Float8Dtype, string[]> & { bfloat16: Record<string, string> };
const tables = readFixture<Tables>('safetensors/float8.json');

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

describe('float8ToFloat32Bits', () => {
  const formats: Float8Dtype[] = [
    'float8_e4m3fn',
    'float8_e4m3fnuz',
    'float8_e5m2',
    'float8_e5m2fnuz',
    'float8_e8m0fnu',
  ];
  for (const dtype of formats) {
    it(`${dtype}: all 256 codes give the definition's float32 bits`, () => {
      const got = Array.from({ length: 256 }, (_, c) => hex8(float8ToFloat32Bits(dtype, c)));
      expect(got).toEqual(tables[dtype]);
    });
  }

  it('pins the extremes of each format', () => {
    expect(float8ToNumber('float8_e4m3fn', 0x7e)).toBe(448);
    expect(float8ToNumber('float8_e4m3fn', 0x01)).toBe(2 ** -9);
    expect(float8ToNumber('float8_e4m3fn', 0xff)).toBeNaN();
    expect(hex8(float8ToFloat32Bits('float8_e4m3fn', 0xff))).toBe('ffc00000');
    expect(float8ToNumber('float8_e5m2', 0x7b)).toBe(57344);
    expect(float8ToNumber('float8_e5m2', 0x7c)).toBe(Number.POSITIVE_INFINITY);
    expect(float8ToNumber('float8_e5m2', 0xfc)).toBe(Number.NEGATIVE_INFINITY);
    // e5m2 keeps a NaN's payload and sign, as numpy's half -> float does.
    expect(hex8(float8ToFloat32Bits('float8_e5m2', 0xfd))).toBe('ffa00000');
    expect(float8ToNumber('float8_e4m3fnuz', 0x7f)).toBe(240);
    expect(float8ToNumber('float8_e4m3fnuz', 0x80)).toBeNaN();
    expect(float8ToNumber('float8_e5m2fnuz', 0x01)).toBe(2 ** -17);
    expect(float8ToNumber('float8_e8m0fnu', 127)).toBe(1);
    expect(float8ToNumber('float8_e8m0fnu', 0)).toBe(2 ** -127);
    expect(float8ToNumber('float8_e8m0fnu', 254)).toBe(2 ** 127);
    expect(float8ToNumber('float8_e8m0fnu', 255)).toBeNaN();
    expect(Object.is(float8ToNumber('float8_e4m3fn', 0x80), -0)).toBe(true);
    expect(Object.is(float8ToNumber('float8_e5m2fnuz', 0x00), 0)).toBe(true);
  });

  it('isFloat8Dtype knows exactly the five formats', () => {
    expect(['float8_e4m3fn', 'float8_e5m2', 'float8_e8m0fnu'].every(isFloat8Dtype)).toBe(true);
    expect(isFloat8Dtype('bfloat16')).toBe(false);
    expect(isFloat8Dtype('float8')).toBe(false);
  });
});

describe('bfloat16ToFloat32Bits', () => {
  it('is the upper half of the float32, payloads and signalling NaNs included', () => {
    for (const [b, f] of Object.entries(tables.bfloat16)) {
      expect(hex8(bfloat16ToFloat32Bits(Number.parseInt(b, 16)))).toBe(f);
    }
    expect(hex8(bfloat16ToFloat32Bits(0x7f81))).toBe('7f810000');
  });
});
