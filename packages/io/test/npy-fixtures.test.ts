import { dtypeSize } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { decodeNpy, encodeNpy, readNpyHeader } from '../src/index.js';
import {
  alignmentOf,
  base64,
  expectError,
  fixtureBytes,
  manifest,
  type ValidFixture,
} from './helpers.js';

const names = <T extends { file: string }>(list: T[]) => list.map((f) => [f.file, f] as const);

describe('numpy-written .npy fixtures', () => {
  it('cover every dtype, both byte orders, both memory orders and all three versions', () => {
    const v = manifest.valid;
    const dtypes = new Set(v.map((f) => f.dtype));
    for (const d of [
      'bool',
      'int8',
      'uint8',
      'int16',
      'uint16',
      'int32',
      'uint32',
      'int64',
      'uint64',
    ]) {
      expect(dtypes).toContain(d);
    }
    for (const d of ['float16', 'float32', 'float64', 'complex64', 'complex128', 'U5', 'S3']) {
      expect(dtypes).toContain(d);
    }
    expect(v.some((f) => f.descr.startsWith('>') && f.fortranOrder && f.shape.length === 3)).toBe(
      true,
    );
    expect(new Set(v.map((f) => f.version[0]))).toEqual(new Set([1, 2, 3]));
    expect(v.filter((f) => f.canonical).length).toBeGreaterThan(20);
  });

  it.each(names(manifest.valid))('%s decodes to numpy bytes', (_, f: ValidFixture) => {
    const bytes = fixtureBytes(f.file);
    const t = decodeNpy(bytes);
    expect(t.dtype).toBe(f.dtype);
    expect(t.shape).toEqual(f.shape);
    expect(Buffer.from(t.data).toString('base64')).toBe(f.data);
    expect(t.data.byteOffset % alignmentOf(dtypeSize(t.dtype))).toBe(0);

    const h = readNpyHeader(bytes);
    expect(h.descr).toBe(f.descr);
    expect(h.version).toEqual(f.version);
    expect(h.fortranOrder).toBe(f.fortranOrder);
    expect(h.nbytes).toBe(base64(f.data).length);
    expect(h.dataOffset % 64).toBe(0);
    expect(h.byteOrder).toBe(
      f.descr[0] === '>'
        ? 'big'
        : dtypeSize(t.dtype) === 1 || f.dtype[0] === 'S'
          ? 'none'
          : 'little',
    );
  });

  it.each(names(manifest.valid))('%s re-encodes as numpy writes it', (_, f: ValidFixture) => {
    const bytes = fixtureBytes(f.file);
    const encoded = encodeNpy(decodeNpy(bytes));
    if (f.canonical) expect(Buffer.from(encoded).equals(Buffer.from(bytes))).toBe(true);
    const again = readNpyHeader(encoded);
    expect(again.version).toEqual([1, 0]);
    expect(again.fortranOrder).toBe(false);
    expect(again.dataOffset % 64).toBe(0);
    expect(encoded.length).toBe(again.dataOffset + again.nbytes);
    expect(Buffer.from(decodeNpy(encoded).data).toString('base64')).toBe(f.data);
  });

  it("reads and reproduces numpy's own version 2.0 header for a rank-24000 shape, past numpy's default header limit only when asked", () => {
    const f = manifest.longHeader;
    const bytes = fixtureBytes(f.file);
    expect(() => decodeNpy(bytes)).toThrow(/exceeds the 10000-byte limit/);
    const options = { maxHeaderBytes: 1 << 20 };
    const t = decodeNpy(bytes, options);
    expect(t.shape.length).toBe(f.rank);
    expect(t.shape.every((d) => d === 1)).toBe(true);
    expect([...t.data]).toEqual([...base64(f.data)]);
    expect(readNpyHeader(bytes, undefined, options).version).toEqual([2, 0]);
    expect(Buffer.from(encodeNpy(t)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('copies the data when the input view is misaligned for the item size', () => {
    const bytes = fixtureBytes('c16-le-c.npy');
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    const t = decodeNpy(shifted.subarray(3));
    expect(t.data.byteOffset % 8).toBe(0);
    expect(Buffer.from(t.data).equals(Buffer.from(decodeNpy(bytes).data))).toBe(true);
  });

  it('shares memory with an aligned little-endian C-order input and never mutates a big-endian one', () => {
    const le = fixtureBytes('f8-special.npy');
    expect(decodeNpy(le).data.buffer).toBe(le.buffer);
    const be = fixtureBytes('f8-special-be.npy');
    const before = Buffer.from(be);
    decodeNpy(be);
    expect(Buffer.from(be).equals(before)).toBe(true);
  });
});

describe('refused fixtures', () => {
  it.each(names(manifest.invalid))('%s is refused', (_, f) => {
    const error = expectError(() => decodeNpy(fixtureBytes(f.file)));
    expect(error.code).toBe(f.code);
    expect(error.message).toContain(f.includes);
    expect(error.message).not.toContain('\n');
  });

  it('names the reason for each refused dtype', () => {
    const message = (file: string) => expectError(() => decodeNpy(fixtureBytes(file))).message;
    expect(message('object.npy')).toBe(
      ".npy dtype '|O' refused: object arrays need pickle, which tensorops never runs",
    );
    expect(message('structured.npy')).toBe(
      ".npy structured dtype [('a', '<i4'), ('b', '<f8')] refused: record arrays are not tensors; save each field as its own array",
    );
    expect(message('terabytes.npy')).toBe(
      '.npy data truncated: header claims 8000000000000000 bytes (shape [1000000,1000000,1000], dtype float64) but only 8 bytes follow the header',
    );
    expect(message('bad-magic.npy')).toBe(
      "not a .npy file: it does not start with '\\x93NUMPY' (it looks like a zip archive)",
    );
  });
});
