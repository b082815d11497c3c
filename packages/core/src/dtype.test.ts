import { describe, expect, it } from 'vitest';
import {
  DTYPE_SIZES,
  type Dtype,
  dtypeSize,
  isIntegerDtype,
  isStringDtype,
  NUMERIC_DTYPES,
  parseDtype,
} from './dtype.js';
import { TensorOpsError } from './errors.js';

describe('dtypes', () => {
  it('knows every dtype of docs/design.md §2.3 with its item size', () => {
    expect(DTYPE_SIZES).toEqual({
      bool: 1,
      int8: 1,
      uint8: 1,
      int16: 2,
      uint16: 2,
      int32: 4,
      uint32: 4,
      int64: 8,
      uint64: 8,
      float16: 2,
      bfloat16: 2,
      float32: 4,
      float64: 8,
      complex64: 8,
      complex128: 16,
      float8_e4m3fn: 1,
      float8_e4m3fnuz: 1,
      float8_e5m2: 1,
      float8_e5m2fnuz: 1,
      float8_e8m0fnu: 1,
    });
  });

  it('agrees with the platform on the sizes it can check: typed arrays of the same element', () => {
    const platform: Record<string, { BYTES_PER_ELEMENT: number }> = {
      bool: Uint8Array,
      int8: Int8Array,
      uint8: Uint8Array,
      int16: Int16Array,
      uint16: Uint16Array,
      int32: Int32Array,
      uint32: Uint32Array,
      int64: BigInt64Array,
      uint64: BigUint64Array,
      float16: Uint16Array,
      bfloat16: Uint16Array,
      float32: Float32Array,
      float64: Float64Array,
    };
    for (const [dtype, array] of Object.entries(platform)) {
      expect(dtypeSize(dtype as Dtype), dtype).toBe(array.BYTES_PER_ELEMENT);
    }
    // complex is a pair of its float; a float8 is one byte.
    expect(dtypeSize('complex64')).toBe(2 * Float32Array.BYTES_PER_ELEMENT);
    expect(dtypeSize('complex128')).toBe(2 * Float64Array.BYTES_PER_ELEMENT);
    for (const d of NUMERIC_DTYPES.filter((n) => n.startsWith('float8')))
      expect(dtypeSize(d)).toBe(1);
  });

  it('sizes fixed-width strings like numpy: U<n> is 4n bytes, S<n> is n bytes', () => {
    expect(dtypeSize('U3')).toBe(12);
    expect(dtypeSize('U1')).toBe(4);
    expect(dtypeSize('S2')).toBe(2);
    expect(dtypeSize('S1073741823')).toBe(1073741823);
    // Zero-width strings, as numpy reads them: elements of no bytes.
    expect(dtypeSize('U0')).toBe(0);
    expect(dtypeSize('S0')).toBe(0);
  });

  it('parseDtype accepts known names and canonical string widths', () => {
    for (const name of [...NUMERIC_DTYPES, 'U0', 'S0', 'U1', 'U3', 'S2', 'S10', 'U1073741823']) {
      expect(parseDtype(name)).toBe(name);
    }
  });

  it('parseDtype refuses everything else with E_DTYPE', () => {
    for (const name of [
      '',
      'U',
      'S',
      'U03',
      'S00',
      'u3',
      's2',
      'U-1',
      'U1.5',
      'U 3',
      'U1073741824',
      'float128',
      'object',
      'V8',
      '<U3',
      'toString',
      'constructor',
    ]) {
      let caught: unknown;
      try {
        parseDtype(name);
      } catch (e) {
        caught = e;
      }
      expect(caught, name).toBeInstanceOf(TensorOpsError);
      expect((caught as TensorOpsError).code).toBe('E_DTYPE');
      expect((caught as TensorOpsError).message).toBe(`unknown dtype '${name}'`);
    }
    expect(() => dtypeSize('X3' as Dtype)).toThrow("unknown dtype 'X3'");
  });

  it('classifies integer and string dtypes', () => {
    const ints = NUMERIC_DTYPES.filter((d) => isIntegerDtype(d));
    expect(ints).toEqual([
      'int8',
      'uint8',
      'int16',
      'uint16',
      'int32',
      'uint32',
      'int64',
      'uint64',
    ]);
    expect(isIntegerDtype('U4')).toBe(false);
    expect(isStringDtype('U4')).toBe(true);
    expect(isStringDtype('S1')).toBe(true);
    for (const d of NUMERIC_DTYPES) expect(isStringDtype(d)).toBe(false);
  });
});
