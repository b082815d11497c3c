import { join } from 'node:path';
import { createTensor, tensorFrom } from '@tensorops/core';
import { describe, expect, it } from 'vitest';
import { decodeSafetensors, encodeSafetensors, parseSafetensorsHeader } from '../src/index.js';
import { openTensorBytes, openTensorFile } from '../src/node/index.js';
import { SAFETENSORS_DTYPES, safetensorsHeaderLength } from '../src/safetensors.js';
import { bytesOf, expectTensor, SAFETENSORS_DIR, safetensorsManifest } from './format-fixtures.js';
import { expectError, expectRejection } from './helpers.js';

const fixture = (file: string): string => join(SAFETENSORS_DIR, file);

/** A file from a header text and data, padded like the reference writer pads. */
function file(header: string, data: Uint8Array = new Uint8Array(0)): Uint8Array {
  const json = new TextEncoder().encode(header);
  const padded = json.length + ((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + padded + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.set(json, 8);
  out.fill(0x20, 8 + json.length, 8 + padded);
  out.set(data, 8 + padded);
  return out;
}

describe('.safetensors: files built to the spec (fixtures)', () => {
  it('knows every dtype of the current format', () => {
    expect([...SAFETENSORS_DTYPES].sort()).toEqual(
      [
        'BOOL',
        'U8',
        'I8',
        'I16',
        'U16',
        'I32',
        'U32',
        'I64',
        'U64',
        'F16',
        'BF16',
        'F32',
        'F64',
        'C64',
        'F8_E4M3',
        'F8_E5M2',
        'F8_E8M0',
        'F8_E4M3FNUZ',
        'F8_E5M2FNUZ',
        'F6_E2M3',
        'F6_E3M2',
        'F4',
      ].sort(),
    );
  });

  it('reads every header: names, dtypes, shapes, offsets, metadata', () => {
    for (const v of safetensorsManifest.valid) {
      const bytes = bytesOf(fixture(v.file));
      const h = parseSafetensorsHeader(bytes, bytes.length);
      expect(h.metadata === null ? null : { ...h.metadata }, v.file).toEqual(v.metadata);
      expect(
        h.tensors.map((t) => [
          t.name,
          t.formatDtype,
          t.dtype ?? null,
          t.shape,
          h.dataOffset + t.begin,
          t.end - t.begin,
        ]),
        v.file,
      ).toEqual(v.tensors.map((t) => [t.name, t.stDtype, t.dtype, t.shape, t.offset, t.nbytes]));
    }
  });

  it('loads every tensor bit for bit through the file reader; F4/F6 only inspect', async () => {
    for (const v of safetensorsManifest.valid) {
      const f = await openTensorFile(fixture(v.file));
      try {
        for (const e of v.tensors) {
          const stored = f.get(e.name);
          if (e.dtype === null) {
            const error = await expectRejection(f.read(stored));
            expect(error.code).toBe('E_DTYPE');
            expect(error.message).toContain(`packed below one byte per element`);
            expect(() => f.stream(stored)).toThrow(/can be inspected, not loaded/);
            continue;
          }
          expectTensor(await f.read(stored), { ...e, dtype: e.dtype }, `${v.file}:${e.name}`);
          // The bytes are where the header says: offsets are absolute and exact.
          const raw = new Uint8Array(e.nbytes);
          await f.readAt(raw, e.offset);
          expect(Buffer.from(raw).toString('base64')).toBe(e.b64);
        }
      } finally {
        await f.close();
      }
    }
  });

  it('decodeSafetensors gives the same tensors (files without sub-byte dtypes)', () => {
    for (const v of safetensorsManifest.valid) {
      if (v.tensors.some((t) => t.dtype === null)) continue;
      const d = decodeSafetensors(bytesOf(fixture(v.file)));
      expect(d.tensors.map((t) => t.name)).toEqual(v.tensors.map((t) => t.name));
      d.tensors.forEach((t, i) => {
        const e = v.tensors[i] as (typeof v.tensors)[number];
        expectTensor(t.tensor, { ...e, dtype: e.dtype as string }, `${v.file}:${t.name}`);
      });
    }
  });

  it('refuses every malformed file with the expected code and message (pure and file readers)', async () => {
    expect(safetensorsManifest.invalid.length).toBeGreaterThanOrEqual(25);
    for (const bad of safetensorsManifest.invalid) {
      const path = fixture(bad.file);
      const pure = expectError(() => decodeSafetensors(bytesOf(path)));
      expect(pure.code, bad.file).toBe(bad.code);
      expect(pure.message, bad.file).toContain(bad.includes);
      const viaFile = await expectRejection(openTensorFile(path));
      expect(viaFile.code, bad.file).toBe(bad.code);
      expect(viaFile.message, bad.file).toBe(`${path}: ${pure.message}`);
    }
  });

  it('the header-only reader needs no data bytes but checks the end when given the file size', () => {
    const bytes = bytesOf(fixture('single.safetensors'));
    const h = parseSafetensorsHeader(bytes.subarray(0, 8 + safetensorsHeaderLength(bytes)));
    expect(h.tensors.map((t) => t.name)).toEqual(['embed.weight']);
    expect(() => parseSafetensorsHeader(bytes, bytes.length + 1)).toThrow(
      /1 byte after the last tensor/,
    );
    expect(() => parseSafetensorsHeader(bytes, bytes.length - 1)).toThrow(/truncated/);
  });

  it('refuses a header length beyond 100 MB before reading or allocating it', () => {
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigUint64(0, 2n ** 63n, true);
    const e = expectError(() => safetensorsHeaderLength(prefix, 1 << 30));
    // The length is the file's first bytes: not shown, as a file that is not .safetensors at
    // all could be anything.
    expect(e.message).toBe(
      '.safetensors header length exceeds the 100000000-byte limit: not a .safetensors file',
    );
    const text = new TextEncoder().encode('root:x:0:0:root:/root:/bin/bash\n');
    expect(expectError(() => safetensorsHeaderLength(text)).message).toBe(
      '.safetensors header length exceeds the 100000000-byte limit: not a .safetensors file (it looks like text)',
    );
  });
});

describe('.safetensors: the rules JavaScript needs on top of the reference', () => {
  it('duplicate keys at any level are refused (JSON.parse would keep the last)', () => {
    const dup =
      '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}';
    const once = '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}';
    expect(decodeSafetensors(file(once, new Uint8Array(1))).tensors.map((t) => t.name)).toEqual([
      'a',
    ]);
    expect(expectError(() => decodeSafetensors(file(dup, new Uint8Array(1)))).message).toContain(
      "duplicate key 'a'",
    );
    const nested = '{"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}';
    expect(expectError(() => decodeSafetensors(file(nested, new Uint8Array(1)))).message).toContain(
      "duplicate key 'dtype'",
    );
  });

  it('integers beyond 2^53 are refused, not rounded', () => {
    const text = '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,9007199254740993]}}';
    expect(expectError(() => decodeSafetensors(file(text))).message).toContain(
      '9007199254740993 is not a safe integer',
    );
  });

  it('sizes a shape exactly up to 2^53-1 bytes, and refuses one beyond', () => {
    const header = (shape: string, end: number) =>
      `{"a":{"dtype":"U8","shape":${shape},"data_offsets":[0,${end}]}}`;
    const max = Number.MAX_SAFE_INTEGER;
    expect(expectError(() => decodeSafetensors(file(header(`[${max}]`, 1)))).message).toContain(
      `needs ${max} bytes, data_offsets [0, 1] hold 1`,
    );
    for (const shape of [`[${2 ** 52},2]`, `[${max},${max},${max}]`]) {
      expect(expectError(() => decodeSafetensors(file(header(shape, 1)))).message).toContain(
        `shape ${shape} of U8 needs a number of bytes beyond 2^53-1`,
      );
    }
    // A zero dim empties the tensor, however large the dims before it.
    const empty = decodeSafetensors(file(header(`[${max},${max},0]`, 0)));
    expect(empty.tensors[0]?.tensor.shape).toEqual([max, max, 0]);
  });

  it('refuses a shape of a million dims without multiplying them all out', {
    timeout: 10_000,
  }, () => {
    const dims = new Array(1_000_000).fill(2).join(',');
    const e = expectError(() =>
      decodeSafetensors(file(`{"a":{"dtype":"U8","shape":[${dims}],"data_offsets":[0,1]}}`)),
    );
    expect(e.message).toContain('needs a number of bytes beyond 2^53-1');
  });

  it('decodes escapes in names exactly and refuses lone surrogates', () => {
    const ok = file(
      '{"a\\u00e9\\ud83d\\ude00\\n":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
      new Uint8Array([7]),
    );
    expect(decodeSafetensors(ok).tensors[0]?.name).toBe('aé😀\n');
    const lone = file(
      '{"\\ud83d":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
      new Uint8Array([7]),
    );
    expect(expectError(() => decodeSafetensors(lone)).message).toContain('lone high surrogate');
  });

  it('__metadata__ must map strings to strings', () => {
    const meta = file('{"__metadata__":{"a":"1","b":"x"}}');
    expect({ ...decodeSafetensors(meta).metadata }).toEqual({ a: '1', b: 'x' });
    expect(() => decodeSafetensors(file('{"__metadata__":null}'))).toThrow(/must be an object/);
  });
});

describe('.safetensors writer', () => {
  it('reproduces the reference layout byte for byte (canonical fixtures)', () => {
    for (const v of safetensorsManifest.valid) {
      if (!v.canonical || v.tensors.some((t) => t.dtype === null)) continue;
      const bytes = bytesOf(fixture(v.file));
      const d = decodeSafetensors(bytes);
      // Shuffle the input order: the writer's order must not depend on it.
      const shuffled = [...d.tensors].reverse();
      expect(
        Buffer.from(encodeSafetensors(shuffled, d.metadata)).equals(Buffer.from(bytes)),
        v.file,
      ).toBe(true);
    }
  });

  it('pads the header with spaces to 8 bytes, metadata first, dtype rank then name', () => {
    const out = encodeSafetensors(
      [
        { name: 'b', tensor: tensorFrom('uint8', [1], [1]) },
        { name: 'a', tensor: tensorFrom('uint8', [2], [2, 3]) },
        { name: 'z', tensor: tensorFrom('float64', [1], [0.5]) },
      ],
      { k: 'v' },
    );
    const n = Number(new DataView(out.buffer).getBigUint64(0, true));
    expect(n % 8).toBe(0);
    const text = new TextDecoder().decode(out.subarray(8, 8 + n));
    expect(text).toBe(
      `${'{"__metadata__":{"k":"v"},"z":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"a":{"dtype":"U8","shape":[2],"data_offsets":[8,10]},"b":{"dtype":"U8","shape":[1],"data_offsets":[10,11]}}'.padEnd(n, ' ')}`,
    );
    expect(Array.from(out.subarray(8 + n + 8))).toEqual([2, 3, 1]);
  });

  it('refuses what it cannot store exactly, before producing anything', () => {
    const s = createTensor('U2', [1], new Uint8Array(8));
    expect(expectError(() => encodeSafetensors([{ name: 's', tensor: s }])).message).toContain(
      'has no dtype for U2',
    );
    const c = createTensor('complex128', [1]);
    expect(expectError(() => encodeSafetensors([{ name: 'c', tensor: c }])).code).toBe('E_DTYPE');
    const u = tensorFrom('uint8', [1], [1]);
    expect(() => encodeSafetensors([{ name: '__metadata__', tensor: u }])).toThrow(
      /cannot name a tensor/,
    );
    expect(() =>
      encodeSafetensors([
        { name: 'x', tensor: u },
        { name: 'x', tensor: u },
      ]),
    ).toThrow(/two tensors named 'x'/);
  });

  it('round-trips every loadable dtype, with NaN payloads and -0.0 intact', async () => {
    const f = await openTensorBytes(
      bytesOf(fixture('all-dtypes.safetensors')),
      'all-dtypes.safetensors',
    );
    const tensors = [];
    for (const t of f.tensors)
      if (t.dtype !== undefined) tensors.push({ name: t.name as string, tensor: await f.read(t) });
    const again = decodeSafetensors(encodeSafetensors(tensors, f.metadata));
    expect(
      again.tensors.map((t) => [
        t.name,
        t.tensor.dtype,
        Buffer.from(t.tensor.data).toString('hex'),
      ]),
    ).toEqual(
      [...tensors].map((t) => [t.name, t.tensor.dtype, Buffer.from(t.tensor.data).toString('hex')]),
    );
    expect({ ...again.metadata }).toEqual({ format: 'pt', note: 'café ✓' });
  });
});
