import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTensor, tensorFrom } from '@tensorops/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { encodeNpy } from '../src/index.js';
import {
  openTensorBytes,
  openTensorFile,
  readTensorFile,
  writeFileAtomic,
  writeTensorsFile,
} from '../src/node/index.js';
import { bytesOf, expectTensor, NPZ_DIR, npzManifest } from './format-fixtures.js';
import { expectRejection } from './helpers.js';

const fixture = (file: string): string => join(NPZ_DIR, file);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-npz-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('.npz written by numpy (np.savez, np.savez_compressed)', () => {
  it('reads every member of every archive bit for bit, names with / included', async () => {
    expect(npzManifest.valid.map((v) => v.file)).toContain('savez-compressed.npz');
    for (const v of npzManifest.valid) {
      const f = await openTensorFile(fixture(v.file));
      try {
        expect(f.format).toBe('npz');
        expect(
          f.tensors.map((t) => t.name),
          v.file,
        ).toEqual(v.tensors.map((t) => t.name));
        for (const e of v.tensors) {
          const stored = f.get(e.name);
          expect(stored.compression, e.name).toBe(v.compression);
          expect(stored.fortranOrder, e.name).toBe(e.fortranOrder);
          expectTensor(await f.read(stored), e, `${v.file}:${e.name}`);
        }
      } finally {
        await f.close();
      }
    }
  });

  it('inspects from the central directory: stored members have absolute data offsets', async () => {
    const path = fixture('savez.npz');
    const raw = readFileSync(path);
    const f = await openTensorFile(path);
    const ints = f.get('ints');
    expect(ints.offset).not.toBeNull();
    const expected = npzManifest.valid[0]?.tensors.find((t) => t.name === 'ints');
    expect(
      raw.subarray(ints.offset as number, (ints.offset as number) + ints.nbytes).toString('base64'),
    ).toBe(expected?.b64);
    expect(f.get('layer/0/weight').shape).toEqual([2, 2]);
    expect(f.get('big_endian')).toMatchObject({ formatDtype: '>i4', byteOrder: 'big' });
    await f.close();
    const z = await openTensorFile(fixture('savez-compressed.npz'));
    expect(z.tensors.every((t) => t.offset === null && t.compression === 'deflate')).toBe(true);
    expect(z.get('ints').compressedBytes).toBeLessThan(z.get('ints').nbytes + 128);
    await z.close();
  });

  it('names: one-member archives need no name, others list theirs', async () => {
    expect((await readTensorFile(fixture('single.npz'))).shape).toEqual([3, 2]);
    const e = await expectRejection(readTensorFile(fixture('positional.npz')));
    expect(e.code).toBe('E_TENSOR_NOT_FOUND');
    expect(e.message).toMatch(/holds 2 tensors \('arr_0', 'arr_1'\) and no name was given$/);
    const m = await expectRejection(readTensorFile(fixture('positional.npz'), 'nope'));
    expect(m.message).toBe(
      `${fixture('positional.npz')}: no tensor 'nope' (it holds 'arr_0', 'arr_1')`,
    );
    const empty = await expectRejection(readTensorFile(fixture('empty.npz')));
    expect(empty.message).toContain('holds no tensors');
  });
});

describe('.npz hardening', () => {
  it('refuses every malformed archive with the expected code and message', async () => {
    expect(npzManifest.invalid.length).toBeGreaterThanOrEqual(15);
    for (const bad of npzManifest.invalid) {
      const path = fixture(bad.file);
      const error = await expectRejection(
        (async () => {
          const f = await openTensorFile(path);
          try {
            for (const t of f.tensors) await f.read(t);
            // Members that are not tensors are refused when asked for, and only then.
            for (const o of f.notTensors) f.get(o.name);
          } finally {
            await f.close();
          }
        })(),
      );
      expect(error.code, bad.file).toBe(bad.code);
      expect(error.message, bad.file).toContain(bad.includes);
      expect(error.message.startsWith(`${path}: `), error.message).toBe(true);
    }
  });

  it('stops a deflate member that inflates beyond its declared size at once', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const start = performance.now();
    const f = await openTensorFile(fixture('deflate-bomb.npz'));
    expect(f.tensors).toEqual([]);
    expect(f.notTensors.map((o) => [o.name, o.kind])).toEqual([['x', 'unreadable']]);
    const e = await expectRejection((async () => f.get('x'))());
    await f.close();
    expect(performance.now() - start).toBeLessThan(500);
    expect(e.message).toContain("member 'x.npy' inflates beyond its declared 144 bytes");
    // 8 MiB of zeros were behind the 144 declared bytes; none of it was kept.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 << 20);
  });

  it('checks the CRC-32 of members it wrote itself', async () => {
    const path = join(dir, 'x.npz');
    await writeTensorsFile(path, [{ name: 'x', data: tensorFrom('int32', [4], [1, 2, 3, 4]) }]);
    const raw = readFileSync(path);
    const f = await openTensorFile(path);
    const at = f.get('x').offset as number;
    await f.close();
    raw[at + 4] = (raw[at + 4] as number) ^ 1;
    writeFileSync(path, raw);
    const e = await expectRejection(readTensorFile(path));
    expect(e.message).toContain("member 'x.npy' CRC-32 mismatch");
  });

  it('streams stored members in chunks and still checks their CRC: a bad one aborts the write', async () => {
    const path = join(dir, 'x.npz');
    const values = Array.from({ length: 1000 }, (_, i) => i);
    await writeTensorsFile(path, [{ name: 'x', data: tensorFrom('int32', [1000], values) }]);
    const good = await openTensorFile(path);
    const parts: number[] = [];
    for await (const chunk of good.stream(good.get('x')).chunks()) parts.push(chunk.length);
    expect(parts).toEqual([4000]);
    await good.close();
    const raw = readFileSync(path);
    const at = raw.indexOf(Buffer.from([0xe7, 0x03, 0, 0])); // 999, the last element
    raw[at] = 0xe8;
    writeFileSync(path, raw);
    const bad = await openTensorFile(path);
    const out = join(dir, 'out.safetensors');
    const e = await expectRejection(
      writeTensorsFile(out, [{ name: 'x', data: bad.stream(bad.get('x')) }]),
    );
    await bad.close();
    expect(e.message.startsWith(`${out}: ${path}: .npz member 'x.npy' CRC-32 mismatch: `)).toBe(
      true,
    );
    expect(readdirSync(dir)).toEqual(['x.npz']);
  });

  it('never unpickles: object arrays are refused by their header', async () => {
    const e = await expectRejection(readTensorFile(fixture('pickle.npz')));
    expect(e.code).toBe('E_DTYPE');
    expect(e.message).toContain('pickle, which tensorops never runs');
  });
});

describe('.npz writer', () => {
  const tensors = [
    { name: 'layer/0/w', data: tensorFrom('float32', [2, 2], [1, -0, 2.5, Number.NaN]) },
    { name: 'ids', data: tensorFrom('int64', [3], [2n ** 63n - 1n, -1n, 7n]) },
    {
      name: 'caf\u00e9',
      data: createTensor('U2', [1], new Uint8Array([0x61, 0, 0, 0, 0xe9, 0, 0, 0])),
    },
  ];

  it('round-trips names, dtypes and bytes, stored and deflated', async () => {
    for (const compress of [false, true]) {
      const path = join(dir, `t${compress}.npz`);
      expect(await writeTensorsFile(path, tensors, { compress })).toEqual([]);
      const f = await openTensorFile(path);
      expect(f.tensors.map((t) => [t.name, t.compression])).toEqual(
        tensors.map((t) => [t.name, compress ? 'deflate' : 'stored']),
      );
      for (const t of tensors) {
        const back = await f.read(f.get(t.name));
        expect(back.dtype).toBe(t.data.dtype);
        expect(Buffer.from(back.data).equals(Buffer.from(t.data.data))).toBe(true);
      }
      await f.close();
      expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    }
  });

  it('writes the same bytes every time (fixed timestamps)', async () => {
    await writeTensorsFile(join(dir, 'a.npz'), tensors);
    await writeTensorsFile(join(dir, 'b.npz'), tensors);
    expect(readFileSync(join(dir, 'a.npz')).equals(readFileSync(join(dir, 'b.npz')))).toBe(true);
  });

  it('each member is exactly the .npy numpy would write', async () => {
    const path = join(dir, 'one.npz');
    await writeTensorsFile(path, [tensors[1] as (typeof tensors)[number]]);
    const f = await openTensorFile(path);
    const t = f.get('ids');
    const raw = readFileSync(path);
    const npy = encodeNpy(tensors[1]?.data as never);
    const start = (t.offset as number) - (npy.length - t.nbytes);
    expect(raw.subarray(start, start + npy.length).equals(Buffer.from(npy))).toBe(true);
    await f.close();
  });

  it('refuses names a zip reader would change, and duplicates, before creating a file', async () => {
    const u = tensorFrom('uint8', [1], [1]);
    for (const [name, why] of [
      ['a\\b', 'zip readers turn \\ into /'],
      ['/abs', 'must be relative'],
      ['a/../b', "'..' segments"],
      ['dir/', 'directory entry'],
      ['', 'it is empty'],
    ] as const) {
      const e = await expectRejection(writeTensorsFile(join(dir, 'x.npz'), [{ name, data: u }]));
      expect(e.message, name).toContain(why);
    }
    const dup = await expectRejection(
      writeTensorsFile(join(dir, 'x.npz'), [
        { name: 'a', data: u },
        { name: 'a', data: u },
      ]),
    );
    expect(dup.message).toContain("two tensors named 'a'");
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('.npz zip64', () => {
  it('reads archives in ZIP64 format (zip64 extra fields, end records and data descriptors)', async () => {
    const t = tensorFrom('int16', [3], [1, -2, 3]);
    const npy = encodeNpy(t);
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(npy), 'a.npy', { forceZip64Format: true, compress: false });
    zip.addBuffer(Buffer.from(npy), 'b/c.npy', { forceZip64Format: true, compress: true });
    zip.end({ forceZip64Format: true, comment: '' });
    const path = join(dir, 'z64.npz');
    await writeFileAtomic(path, zip.outputStream as unknown as AsyncIterable<Uint8Array>);
    const raw = readFileSync(path);
    // The ZIP64 end of central directory record and its locator are there.
    expect(raw.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    expect(raw.includes(Buffer.from([0x50, 0x4b, 0x06, 0x07]))).toBe(true);
    const f = await openTensorFile(path);
    for (const name of ['a', 'b/c']) {
      expect(Buffer.from((await f.read(f.get(name))).data).equals(Buffer.from(t.data))).toBe(true);
    }
    await f.close();
  });

  it('numpy writes zip64 local headers for every member, and they read fine', () => {
    const raw = bytesOf(fixture('savez.npz'));
    // Local header of the first member: extra field id 0x0001 (zip64) right after the name.
    const nameLength = raw[26] as number;
    expect([raw[30 + nameLength], raw[31 + nameLength]]).toEqual([1, 0]);
  });

  it('opens in-memory bytes too (pipes are read whole, then parsed the same way)', async () => {
    const f = await openTensorBytes(bytesOf(fixture('savez-compressed.npz')), 'stdin.npz');
    expect(f.tensors.length).toBe(8);
    expect((await f.read(f.get('scalar'))).data).toEqual(
      new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0x80]),
    );
    await f.close();
  });
});
