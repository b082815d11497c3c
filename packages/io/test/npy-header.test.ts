import { describe, expect, it } from 'vitest';
import { decodeNpy, parseNpyHeaderDict, parsePyLiteral, readNpyHeader } from '../src/index.js';
import { expectError, npyWithHeader } from './helpers.js';

describe('parseNpyHeaderDict', () => {
  it.each([
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", [2n, 3n], false],
    ["{'descr':'<f4','fortran_order':False,'shape':(2,3)}", [2n, 3n], false],
    ['{"shape": (7,), "descr": "<f4", "fortran_order": True}', [7n], true],
    ["{'fortran_order': False, 'shape': (), 'descr': '<f4'}  \n", [], false],
    [
      "\n\t{ 'descr' : '<f4' ,\n 'fortran_order' : True , 'shape' : ( 4 , 0 , ) , } ",
      [4n, 0n],
      true,
    ],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (12345678901234567890123,), }",
      [12345678901234567890123n],
      false,
    ],
  ])('accepts %j', (text, shape, fortran) => {
    const h = parseNpyHeaderDict(text);
    expect(h.descr).toBe('<f4');
    expect(h.shape).toEqual(shape);
    expect(h.fortranOrder).toBe(fortran);
  });

  it.each([
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "unknown key 'x'"],
    ["{'descr': '<f4', 'fortran_order': False}", "missing key 'shape'"],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (3,)}",
      "duplicate key 'shape'",
    ],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
      'dimension 0 is -1, which is negative',
    ],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3.5)}",
      'dimension 1 is 3.5, not an integer',
    ],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (1e3,)}", 'is 1e3, not an integer'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (0x10,)}", 'is 0x10, not an integer'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (True,)}", 'is True, not an integer'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': ('2',)}", "is '2', not an integer"],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (None,)}", 'is None, not an integer'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", "'shape' must be a tuple"],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
      "'shape' must be a tuple of ints like (2, 3), got 2",
    ],
    [
      "{'descr': '<f4', 'fortran_order': 1, 'shape': (2,)}",
      "'fortran_order' must be True or False, got 1",
    ],
    [
      "{'descr': '<f4', 'fortran_order': 'False', 'shape': (2,)}",
      "'fortran_order' must be True or False",
    ],
    ["{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", "unexpected name 'false'"],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} {}",
      'unexpected text after the header dict',
    ],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "dict not closed with '}'"],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}", "unexpected ','"],
    ["{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", "expected ',' or '}'"],
    [
      "{'descr': '<f4', 'fortran_order' False, 'shape': (2,)}",
      "expected ':' after key 'fortran_order'",
    ],
    ["{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", "expected ',' or '}'"],
    ["{'descr': '<f4\n', 'fortran_order': False, 'shape': (2,)}", 'unterminated string'],
    ["{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,)}", 'unsupported escape'],
    ["{'descr': b'<f4', 'fortran_order': False, 'shape': (2,)}", "unexpected name 'b'"],
    [
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,) # comment\n}",
      "got '# comment\\x0a}'",
    ],
    [
      "{'descr': __import__('os').system('true'), 'fortran_order': False, 'shape': (2,)}",
      "unexpected name '__import__'",
    ],
    ["{1: '<f4'}", 'dict key 1 is not a string'],
    ["('<f4', False, (2,))", 'is not a dict'],
    ['', 'ends early'],
    [
      `{'descr': ${'['.repeat(40)}${']'.repeat(40)}, 'fortran_order': False, 'shape': (2,)}`,
      'nested deeper than 32',
    ],
  ])('refuses %j', (text, fragment) => {
    const error = expectError(() => parseNpyHeaderDict(text));
    expect(error.code).toBe('E_FORMAT');
    expect(error.message).toContain(fragment);
    expect(error.message.startsWith('.npy header: ')).toBe(true);
    expect(error.message).not.toMatch(/[\n\r]/);
  });

  it('keeps structured descrs as parsed values (the dtype layer refuses them)', () => {
    const h = parseNpyHeaderDict(
      "{'descr': [('a', '<i4'), ('b', '<f8', (2, 3))], 'fortran_order': False, 'shape': (2,), }",
    );
    expect(h.descr).toEqual({
      kind: 'list',
      items: [
        { kind: 'tuple', items: ['a', '<i4'] },
        { kind: 'tuple', items: ['b', '<f8', { kind: 'tuple', items: [2n, 3n] }] },
      ],
    });
  });

  it('parses the Python literal subset exactly', () => {
    expect(parsePyLiteral('(\'a\', "b\\"c", -3, +4, None, [True, False], {}, ())')).toEqual({
      kind: 'tuple',
      items: [
        'a',
        'b"c',
        -3n,
        4n,
        null,
        { kind: 'list', items: [true, false] },
        { kind: 'dict', entries: new Map() },
        { kind: 'tuple', items: [] },
      ],
    });
  });
});

describe('descr', () => {
  const file = (descr: string, shape = '(2,)', data = new Uint8Array(64)) =>
    npyWithHeader(`{'descr': ${descr}, 'fortran_order': False, 'shape': ${shape}, }`, data);

  it.each([
    ["'<b1'", 'bool'], // npyjs writes '<b1'
    ["'>u1'", 'uint8'],
    ["'<i1'", 'int8'],
    ["'>S2'", 'S2'],
    ["'<S2'", 'S2'],
    ['"<U1"', 'U1'],
    // numpy reads these as native order: little-endian, as tensorops runs
    ["'f4'", 'float32'],
    ["'|f4'", 'float32'],
    ["'=i8'", 'int64'],
    ["'|U3'", 'U3'],
    ["'<U0'", 'U0'],
    ["'|S0'", 'S0'],
    ["'u1'", 'uint8'],
  ])('accepts %s', (descr, dtype) => {
    expect(decodeNpy(file(descr)).dtype).toBe(dtype);
    expect(readNpyHeader(file(descr)).byteOrder).not.toBe('big');
  });

  it.each([
    ["'<f3'", 'E_DTYPE', "'<f3' unsupported"],
    ["'float32'", 'E_DTYPE', "'float32' unsupported"],
    ["'<U01'", 'E_DTYPE', 'string width must be 0 to 1073741823, without leading zeros'],
    ["'|S01'", 'E_DTYPE', 'string width'],
    ["'|O'", 'E_DTYPE', 'object arrays need pickle, which tensorops never runs'],
    ["'|O8'", 'E_DTYPE', 'pickle'],
    ["'<M8[ns]'", 'E_DTYPE', 'datetime64'],
    ["'<m8[D]'", 'E_DTYPE', 'timedelta64'],
    ["'|V16'", 'E_DTYPE', 'void'],
    ["'<f16'", 'E_DTYPE', 'long double'],
    ["'<g'", 'E_DTYPE', 'long double'],
    ["'<c32'", 'E_DTYPE', 'long double'],
    ["[('x', '<f4')]", 'E_DTYPE', 'structured dtype'],
    ["('<f4', (2,))", 'E_FORMAT', "'descr' must be a dtype string"],
    ['4', 'E_FORMAT', "'descr' must be a dtype string like '<f4', got 4"],
  ])('refuses %s', (descr, code, fragment) => {
    const error = expectError(() => decodeNpy(file(descr)));
    expect(error.code).toBe(code);
    expect(error.message).toContain(fragment);
  });
});

describe('readNpyHeader', () => {
  it('needs only the header bytes, not the data', () => {
    const bytes = npyWithHeader("{'descr': '>c8', 'fortran_order': True, 'shape': (3, 4), }");
    expect(readNpyHeader(bytes)).toEqual({
      version: [1, 0],
      descr: '>c8',
      dtype: 'complex64',
      shape: [3, 4],
      fortranOrder: true,
      byteOrder: 'big',
      dataOffset: 128,
      nbytes: 96,
    });
  });

  it('checks the claimed size against the available bytes when given', () => {
    const bytes = npyWithHeader("{'descr': '<i2', 'fortran_order': False, 'shape': (5,), }");
    expect(readNpyHeader(bytes, 10).nbytes).toBe(10);
    expect(expectError(() => readNpyHeader(bytes, 9)).message).toBe(
      '.npy data truncated: header claims 10 bytes (shape [5], dtype int16) but only 9 bytes follow the header',
    );
  });

  it('refuses sizes and dimensions beyond 2^53-1 even when no data size is known', () => {
    const huge = npyWithHeader(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (4503599627370496,), }",
    );
    expect(expectError(() => readNpyHeader(huge)).message).toBe(
      '.npy header claims 36028797018963968 bytes of data (shape [4503599627370496], dtype float64), beyond 2^53-1',
    );
    const wide = npyWithHeader(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 99999999999999999999), }",
    );
    expect(expectError(() => decodeNpy(wide)).message).toBe(
      '.npy header: shape [0,99999999999999999999] has dimension 99999999999999999999, beyond 2^53-1',
    );
  });

  it('refuses headers longer than the limit before reading them', () => {
    const bytes = new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 2, 0, 0, 0, 0, 0x40]);
    const error = expectError(() => readNpyHeader(bytes));
    expect(error.message).toBe(
      ".npy header length 1073741824 exceeds the 10000-byte limit (numpy's default max_header_size)",
    );
  });
});

describe('integers as Python reads them', () => {
  it('refuses leading zeros (03) as Python 3 does, but for zero itself (00)', () => {
    expect(parsePyLiteral('(00, 0, 10)')).toEqual({ kind: 'tuple', items: [0n, 0n, 10n] });
    expect(expectError(() => parsePyLiteral('(03,)')).message).toBe(
      ".npy header: integer '03' at offset 1 has a leading zero",
    );
  });

  it("takes Python 2's 3L only where numpy does: version 1.0 and 2.0 headers", () => {
    expect(parsePyLiteral('(2L, 3L)', true)).toEqual({ kind: 'tuple', items: [2n, 3n] });
    expect(parsePyLiteral('(2L,)')).toEqual({
      kind: 'tuple',
      items: [{ kind: 'number', text: '2L' }],
    });
    const v1 = npyWithHeader("{'descr': '<u1', 'fortran_order': False, 'shape': (1L, 2L), }");
    expect(readNpyHeader(v1).shape).toEqual([1, 2]);
  });
});
