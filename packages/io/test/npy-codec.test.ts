import {
  type Dtype,
  dtypeSize,
  isTensorOpsError,
  NUMERIC_DTYPES,
  type Tensor,
  tensorFrom,
} from '@tensorops/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeNpy,
  decodeSafetensors,
  encodeNpy,
  encodeNpyHeader,
  parseSafetensorsHeader,
  readNpyHeader,
} from '../src/index.js';
import { npyDescr } from '../src/npy.js';
import { expectError, fixtureBytes, npyWithHeader } from './helpers.js';

const NO_DESCR = [
  'bfloat16',
  'float8_e4m3fn',
  'float8_e4m3fnuz',
  'float8_e5m2',
  'float8_e5m2fnuz',
  'float8_e8m0fnu',
];
const ENCODABLE: Dtype[] = [
  ...NUMERIC_DTYPES.filter((d) => !NO_DESCR.includes(d)),
  'U1',
  'U3',
  'S1',
  'S5',
];

const tensorArb = fc
  .record({
    dtype: fc.constantFrom(...ENCODABLE),
    shape: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 4 }),
  })
  .chain(({ dtype, shape }) => {
    const n = shape.reduce((a, b) => a * b, 1) * dtypeSize(dtype);
    return fc
      .uint8Array({ minLength: n, maxLength: n })
      .map((data): Tensor => ({ dtype, shape, data }));
  });

/** Slow reference: the file numpy would write for `t` stored big-endian and/or in Fortran order. */
function foreignFile(t: Tensor, bigEndian: boolean, fortran: boolean): Uint8Array {
  const size = dtypeSize(t.dtype);
  const unit =
    t.dtype[0] === 'S'
      ? 1
      : t.dtype[0] === 'U'
        ? 4
        : t.dtype.startsWith('complex')
          ? size / 2
          : size;
  const n = t.data.length / size;
  const out = new Uint8Array(t.data.length);
  for (let f = 0; f < n; f++) {
    // Position f in Fortran order -> multi-index (first axis fastest) -> C-order position.
    let c = 0;
    let rest = f;
    const index = t.shape.map((d) => {
      const i = fortran ? rest % d : 0;
      if (fortran) rest = Math.floor(rest / d);
      return i;
    });
    for (let k = 0; k < t.shape.length; k++) c = c * (t.shape[k] as number) + (index[k] as number);
    const src = fortran ? c : f;
    for (let b = 0; b < size; b++) {
      const within = b % unit;
      const from = bigEndian ? b - within + (unit - 1 - within) : b;
      out[f * size + b] = t.data[src * size + from] as number;
    }
  }
  let descr = npyDescr(t.dtype);
  if (bigEndian && descr[0] === '<') descr = `>${descr.slice(1)}`;
  const shape = t.shape.length === 1 ? `(${t.shape[0]},)` : `(${t.shape.join(', ')})`;
  return npyWithHeader(
    `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shape}, }`,
    out,
  );
}

describe('encodeNpy / decodeNpy', () => {
  it('round-trips every encodable dtype and shape bit for bit, data on a 64-byte boundary', () => {
    fc.assert(
      fc.property(tensorArb, (t) => {
        const file = encodeNpy(t);
        const h = readNpyHeader(file);
        expect(h.dataOffset % 64).toBe(0);
        expect(file[h.dataOffset - 1]).toBe(0x0a);
        expect(file.length).toBe(h.dataOffset + t.data.length);
        const back = decodeNpy(file);
        expect(back.dtype).toBe(t.dtype);
        expect(back.shape).toEqual(t.shape);
        expect(Buffer.from(back.data).equals(Buffer.from(t.data))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('converts big-endian and Fortran-order files to the same bytes as a slow reference', () => {
    fc.assert(
      fc.property(tensorArb, fc.boolean(), fc.boolean(), (t, bigEndian, fortran) => {
        const back = decodeNpy(foreignFile(t, bigEndian, fortran));
        expect(back.shape).toEqual(t.shape);
        expect(Buffer.from(back.data).equals(Buffer.from(t.data))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('writes the header dict exactly as numpy does', () => {
    const header = encodeNpyHeader({ dtype: 'float32', shape: [2, 3] });
    const text = Buffer.from(header.subarray(10)).toString('latin1');
    expect(text).toBe(
      `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }${' '.repeat(118 - 1 - 59)}\n`,
    );
    expect([...header.subarray(0, 10)]).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 118, 0]);
    const scalar = Buffer.from(encodeNpyHeader({ dtype: 'U7', shape: [] }).subarray(10)).toString(
      'latin1',
    );
    expect(scalar.trimEnd()).toBe("{'descr': '<U7', 'fortran_order': False, 'shape': (), }");
    const bytes = Buffer.from(encodeNpyHeader({ dtype: 'S2', shape: [5] }).subarray(10)).toString(
      'latin1',
    );
    expect(bytes.trimEnd()).toBe("{'descr': '|S2', 'fortran_order': False, 'shape': (5,), }");
  });

  it('switches to version 2.0 only when the header exceeds 65535 bytes', () => {
    for (const [rank, major] of [
      [21800, 1],
      [21900, 2],
    ] as const) {
      const header = encodeNpyHeader({ dtype: 'uint8', shape: new Array(rank).fill(1) });
      expect(header[6]).toBe(major);
      expect(header.length % 64).toBe(0);
      expect(readNpyHeader(header, undefined, { maxHeaderBytes: 1 << 20 }).shape.length).toBe(rank);
    }
  });

  it('keeps NaN payloads, -0.0 and int64 beyond 2^53', () => {
    const f = decodeNpy(encodeNpy(decodeNpy(fixtureBytes('f4-special-be.npy'))));
    expect([...new Uint32Array(f.data.buffer, f.data.byteOffset, 6)]).toEqual([
      0x7fc00001, 0x7f800001, 0xffc12345, 0x80000000, 1, 0x7f800000,
    ]);
    const i = decodeNpy(encodeNpy(tensorFrom('int64', [2], [2n ** 53n + 1n, -(2n ** 63n)])));
    expect([...new BigInt64Array(i.data.buffer, i.data.byteOffset, 2)]).toEqual([
      2n ** 53n + 1n,
      -(2n ** 63n),
    ]);
  });

  it.each(NO_DESCR)('refuses %s: no .npy descr exists for it', (dtype) => {
    const error = expectError(() =>
      encodeNpy({
        dtype: dtype as Dtype,
        shape: [1],
        data: new Uint8Array(dtypeSize(dtype as Dtype)),
      }),
    );
    expect(error.code).toBe('E_DTYPE');
    expect(error.message).toBe(
      `.npy has no dtype for ${dtype}; convert it to float32 first (supported: bool, int8-int64, uint8-uint64, float16, float32, float64, complex64, complex128, U<n>, S<n>)`,
    );
  });

  it('refuses data whose length does not match the shape, and invalid dims', () => {
    const short = expectError(() =>
      encodeNpy({ dtype: 'int32', shape: [2, 2], data: new Uint8Array(12) }),
    );
    expect(short.code).toBe('E_SHAPE');
    expect(short.message).toBe('tensor of dtype int32 and shape [2,2] needs 16 bytes, got 12');
    const bad = expectError(() =>
      encodeNpy({ dtype: 'int8', shape: [1.5], data: new Uint8Array(1) }),
    );
    expect(bad.code).toBe('E_SHAPE');
  });
});

describe('hostile input', () => {
  it('fails on every truncation of a valid file with E_FORMAT', () => {
    for (const name of [
      'c16-be-f3.npy',
      'U5-le-c.npy',
      'f4-v2.npy',
      'c16-v3.npy',
      'f4-scalar.npy',
    ]) {
      const bytes = fixtureBytes(name);
      for (let cut = 0; cut < bytes.length; cut++) {
        const error = expectError(() => decodeNpy(bytes.subarray(0, cut)));
        expect(error.code).toBe('E_FORMAT');
        expect(error.message).toContain('truncated');
      }
    }
  });

  it('never throws anything but a TensorOpsError on corrupted headers', () => {
    const base = fixtureBytes('i2-be-c.npy');
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.nat({ max: base.length - 1 }),
            value: fc.integer({ min: 0, max: 255 }),
          }),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (edits) => {
          const bytes = base.slice();
          for (const { at, value } of edits) bytes[at] = value;
          try {
            decodeNpy(bytes);
          } catch (error) {
            expect(isTensorOpsError(error), String(error)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a header claiming petabytes at once, without allocating', () => {
    const file = npyWithHeader(
      "{'descr': '<c16', 'fortran_order': True, 'shape': (4611686018427387904, 4), }",
      new Uint8Array(16),
    );
    const start = performance.now();
    const error = expectError(() => decodeNpy(file));
    expect(performance.now() - start).toBeLessThan(50);
    expect(error.code).toBe('E_FORMAT');
    expect(error.message).toBe(
      '.npy data truncated: header claims 295147905179352825856 bytes (shape [4611686018427387904,4], dtype complex128) but only 16 bytes follow the header',
    );
  });

  it('refuses data shorter than the shape and accepts trailing bytes', () => {
    const dict = "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }";
    const short = expectError(() => decodeNpy(npyWithHeader(dict, new Uint8Array(5))));
    expect(short.message).toBe(
      '.npy data truncated: header claims 6 bytes (shape [3], dtype uint16) but only 5 bytes follow the header',
    );
    const long = decodeNpy(npyWithHeader(dict, new Uint8Array([1, 0, 2, 0, 3, 0, 9, 9, 9])));
    expect([...long.data]).toEqual([1, 0, 2, 0, 3, 0]);
  });

  it('refuses bad magic, unknown versions and invalid UTF-8 in version 3.0 headers', () => {
    const good = npyWithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (0,), }");
    const magic = good.slice();
    magic[1] = 0x4f;
    expect(expectError(() => decodeNpy(magic)).message).toBe(
      "not a .npy file: it does not start with '\\x93NUMPY'",
    );
    const minor = good.slice();
    minor[7] = 1;
    expect(expectError(() => decodeNpy(minor)).message).toBe(
      '.npy version 1.1 unsupported (supported: 1.0, 2.0, 3.0)',
    );
    expect(expectError(() => decodeNpy(new Uint8Array([0x93, 0x4e]))).message).toBe(
      '.npy preamble truncated: needs 10 bytes, only 2 available',
    );
    expect(expectError(() => decodeNpy(new Uint8Array([0x50, 0x4b]))).message).toContain(
      'not a .npy file',
    );
    const v3 = npyWithHeader(
      "{'descr': '<U1', 'fortran_order': False, 'shape': (0,), '\u00e9': 1}",
      undefined,
      3,
    );
    expect(expectError(() => decodeNpy(v3)).message).toBe(
      ".npy header: unknown key '\\xe9' (expected exactly 'descr', 'fortran_order', 'shape')",
    );
    v3[20] = 0xff;
    expect(expectError(() => decodeNpy(v3)).message).toBe(
      '.npy header (version 3.0) is not valid UTF-8',
    );
  });

  it('refuses what is not a Uint8Array of bytes with one clear error, never an engine TypeError', () => {
    const good = npyWithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (0,), }");
    const decoders: Array<[string, (bytes: Uint8Array) => unknown]> = [
      ['decodeNpy', (b) => decodeNpy(b)],
      ['readNpyHeader', (b) => readNpyHeader(b)],
      ['decodeSafetensors', (b) => decodeSafetensors(b)],
      ['parseSafetensorsHeader', (b) => parseSafetensorsHeader(b)],
    ];
    const inputs: Array<[unknown, string]> = [
      ['abc', 'string'],
      [[0x93, 0x4e], 'Array'],
      [null, 'null'],
      [good.buffer, 'ArrayBuffer (view it: new Uint8Array(buffer))'],
      [
        new Uint16Array(4),
        'Uint16Array (view its bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength))',
      ],
    ];
    for (const [name, decode] of decoders) {
      for (const [input, got] of inputs) {
        const e = expectError(() => decode(input as Uint8Array));
        expect(e.code).toBe('E_DTYPE');
        expect(e.message).toBe(
          `${name}: bytes must be a Uint8Array of the file's bytes, got ${got}`,
        );
      }
    }
    // A Buffer is a Uint8Array, and is taken.
    expect(decodeNpy(Buffer.from(good)).shape).toEqual([0]);
  });

  it('reads latin-1 in version 1.0 headers byte for byte', () => {
    const bytes = npyWithHeader("{'descr': '<U1', 'fortran_order': False, 'shape': (0,), 'X': 1}");
    bytes[bytes.indexOf(0x58)] = 0x80; // U+0080 in latin-1; windows-1252 would decode it as the euro sign
    expect(expectError(() => decodeNpy(bytes)).message).toContain("unknown key '\\x80'");
  });
});
