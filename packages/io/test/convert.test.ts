import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTensor, type Dtype, type Tensor, tensorFrom } from '@tensorops/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storedDtype, TENSOR_FORMATS, type TensorFormat } from '../src/index.js';
import {
  openTensorFile,
  type TensorFile,
  type WriteNote,
  writeTensorsFile,
} from '../src/node/index.js';
import { expectTensor, NPZ_DIR, npzManifest } from './format-fixtures.js';
import { expectRejection, FIXTURES, manifest as npyManifest } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-convert-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const raw = (dtype: Dtype, shape: number[], bytes: number[]): Tensor =>
  createTensor(dtype, shape, new Uint8Array(bytes));

const u32le = (...words: number[]): number[] =>
  words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]);

const f8 = JSON.parse(readFileSync(join(FIXTURES, '../safetensors/float8.json'), 'utf8')) as Record<
  string,
  string[]
>;

/** Every dtype family, with bit patterns a float round trip would change. */
const TENSORS: { name: string; tensor: Tensor }[] = [
  { name: 'f32', tensor: raw('float32', [3], u32le(0x7f800001, 0xffc12345, 0x80000000)) },
  { name: 'f64', tensor: raw('float64', [1], [1, 0, 0, 0, 0, 0, 0xf0, 0x7f]) },
  { name: 'f16', tensor: raw('float16', [2], [0x01, 0x7c, 0x00, 0x80]) },
  { name: 'i64', tensor: tensorFrom('int64', [2], [2n ** 53n + 1n, -(2n ** 63n)]) },
  { name: 'u64', tensor: tensorFrom('uint64', [1], [2n ** 64n - 1n]) },
  { name: 'i32', tensor: tensorFrom('int32', [2, 1], [-1, 2 ** 31 - 1]) },
  { name: 'u32', tensor: tensorFrom('uint32', [1], [2 ** 32 - 1]) },
  { name: 'i16', tensor: tensorFrom('int16', [1], [-3]) },
  { name: 'u16', tensor: tensorFrom('uint16', [1], [65535]) },
  { name: 'i8', tensor: tensorFrom('int8', [2], [-128, 127]) },
  { name: 'u8', tensor: tensorFrom('uint8', [0, 3], []) },
  { name: 'b', tensor: tensorFrom('bool', [], [true]) },
  { name: 'c64', tensor: raw('complex64', [1], u32le(0x7fc00001, 0x80000000)) },
  { name: 'bf16', tensor: raw('bfloat16', [3], [0x81, 0x7f, 0x80, 0x3f, 0x00, 0x80]) },
  { name: 'e4m3', tensor: raw('float8_e4m3fn', [4], [0x7e, 0x01, 0xff, 0x80]) },
  { name: 'e5m2', tensor: raw('float8_e5m2', [3], [0x7b, 0xfd, 0x7c]) },
  { name: 'e8m0', tensor: raw('float8_e8m0fnu', [3], [0, 127, 254]) },
  { name: 'e4m3fnuz', tensor: raw('float8_e4m3fnuz', [2], [0x7f, 0x80]) },
];
const ONLY_NPY = [
  {
    name: 'c128',
    tensor: raw(
      'complex128',
      [1],
      Array.from({ length: 16 }, (_, i) => i),
    ),
  },
  { name: 'U2', tensor: raw('U2', [1], [0x61, 0, 0, 0, 0x00, 0xf6, 0x01, 0]) },
  { name: 'S3', tensor: raw('S3', [2], [0, 0xff, 0x61, 1, 2, 3]) },
];

/** The float32 bytes bfloat16 / float8 become, computed independently of the code under test. */
function widened(t: Tensor): Uint8Array {
  if (t.dtype === 'bfloat16') {
    const out: number[] = [];
    for (let i = 0; i < t.data.length; i += 2)
      out.push(0, 0, t.data[i] as number, t.data[i + 1] as number);
    return new Uint8Array(out);
  }
  const table = f8[t.dtype] as string[];
  return new Uint8Array(
    u32le(...Array.from(t.data, (c) => Number.parseInt(table[c] as string, 16))),
  );
}

function expectedIn(t: Tensor, formats: TensorFormat[]): Tensor {
  let dtype = t.dtype;
  for (const f of formats) dtype = storedDtype(dtype, f);
  return dtype === t.dtype ? t : { dtype, shape: t.shape, data: widened(t) };
}

async function readAll(path: string): Promise<Map<string, Tensor>> {
  const f = await openTensorFile(path);
  const out = new Map<string, Tensor>();
  for (const t of f.tensors) out.set(t.name ?? '', await f.read(t));
  await f.close();
  return out;
}

/** What `tensorops convert` does: stream every tensor of one file into another. */
async function convert(from: TensorFile, to: string): Promise<WriteNote[]> {
  return writeTensorsFile(
    to,
    from.tensors.map((t) => ({ name: t.name ?? 'x', data: from.stream(t) })),
    { metadata: from.metadata, widen: true },
  );
}

describe('round trips through every pair of formats', () => {
  // .gguf is read, never written (gguf.test.ts converts from it).
  const written = TENSOR_FORMATS.filter((f) => f !== 'gguf');
  for (const a of written) {
    for (const b of written) {
      it(`${a} -> ${b}: bit for bit; bfloat16/float8 become float32 exactly where a format lacks them`, async () => {
        // A .npy file holds one tensor: pairs with .npy go one tensor at a time.
        for (const group of a === 'npy' || b === 'npy' ? TENSORS.map((t) => [t]) : [TENSORS]) {
          const src = join(dir, `src.${a}`);
          const dst = join(dir, `dst.${b}`);
          const notes = await writeTensorsFile(
            src,
            group.map((t) => ({ name: t.name, data: t.tensor })),
            { widen: true, metadata: { origin: 'test' } },
          );
          expect(notes.filter((n) => n.kind === 'widened').map((n) => n.name)).toEqual(
            group
              .filter((t) => storedDtype(t.tensor.dtype, a) !== t.tensor.dtype)
              .map((t) => t.name),
          );
          const file = await openTensorFile(src);
          await convert(file, dst);
          await file.close();
          const back = await readAll(dst);
          for (const t of group) {
            const got = back.get(b === 'npy' ? '' : a === 'npy' ? 'x' : t.name) as Tensor;
            const want = expectedIn(t.tensor, [a, b]);
            expect(got.dtype, `${t.name}`).toBe(want.dtype);
            expect(got.shape, `${t.name}`).toEqual(want.shape);
            expect(Buffer.from(got.data).toString('hex'), `${t.name}`).toBe(
              Buffer.from(want.data).toString('hex'),
            );
          }
          if (b === 'safetensors' && a === 'safetensors') {
            const f = await openTensorFile(dst);
            expect({ ...f.metadata }).toEqual({ origin: 'test' });
            await f.close();
          }
        }
      });
    }
  }

  it('every tensor of a container reaches the other container; metadata only where it has a place', async () => {
    const st = join(dir, 'all.safetensors');
    await writeTensorsFile(
      st,
      TENSORS.map((t) => ({ name: t.name, data: t.tensor })),
      {
        metadata: { a: '1', b: '2' },
        widen: true,
      },
    );
    const f = await openTensorFile(st);
    const notes = await convert(f, join(dir, 'all.npz'));
    await f.close();
    expect(notes.filter((n) => n.kind === 'metadata-dropped')).toEqual([
      { kind: 'metadata-dropped', keys: 2, format: 'npz' },
    ]);
    expect(
      notes
        .filter((n) => n.kind === 'widened')
        .map((n) => n.name)
        .sort(),
    ).toEqual(['bf16', 'e4m3', 'e4m3fnuz', 'e5m2', 'e8m0']);
    const back = await readAll(join(dir, 'all.npz'));
    expect([...back.keys()].sort()).toEqual(TENSORS.map((t) => t.name).sort());
  });

  it('strings and complex128 move between .npy and .npz, and are refused by .safetensors', async () => {
    for (const t of ONLY_NPY) {
      const npz = join(dir, 'o.npz');
      await writeTensorsFile(npz, [{ name: t.name, data: t.tensor }]);
      const f = await openTensorFile(npz);
      await convert(f, join(dir, 'o.npy'));
      const e = await expectRejection(convert(f, join(dir, 'o.safetensors')));
      await f.close();
      expect(e.code).toBe('E_DTYPE');
      expect(e.message).toContain(
        `.safetensors cannot store ${t.tensor.dtype} (tensor '${t.name}') exactly`,
      );
      expect(
        Buffer.from((await readAll(join(dir, 'o.npy'))).get('')?.data ?? []).equals(
          Buffer.from(t.tensor.data),
        ),
      ).toBe(true);
      expect(readdirSync(dir).sort()).toEqual(['o.npy', 'o.npz']);
    }
  });

  it('without widen, bfloat16 / float8 into .npy / .npz are refused before any file exists', async () => {
    const e = await expectRejection(
      writeTensorsFile(join(dir, 'x.npz'), [{ name: 'w', data: TENSORS[13]?.tensor as Tensor }]),
    );
    expect(e.message).toContain('.npz has no dtype for bfloat16; convert it to float32 first');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('byte order and memory order are normalised on the way', () => {
  it('big-endian and Fortran-order numpy files convert to little-endian C order', async () => {
    const cases = npyManifest.valid.filter(
      (v) =>
        (v.descr.startsWith('>') || v.fortranOrder) &&
        !v.dtype.startsWith('U') &&
        !v.dtype.startsWith('S') &&
        v.dtype !== 'complex128',
    );
    expect(cases.length).toBeGreaterThan(10);
    for (const v of cases) {
      const f = await openTensorFile(join(FIXTURES, v.file));
      const out = join(dir, 'o.safetensors');
      await convert(f, out);
      await f.close();
      const t = (await readAll(out)).get('x') as Tensor;
      expect(Buffer.from(t.data).toString('base64'), v.file).toBe(v.data);
      expect(t.shape).toEqual(v.shape);
    }
  });

  it('numpy .npz members (Fortran order, big-endian, deflated) convert exactly', async () => {
    for (const file of ['savez.npz', 'savez-compressed.npz']) {
      const f = await openTensorFile(join(NPZ_DIR, file));
      await convert(f, join(dir, 'o.npz'));
      await f.close();
      const back = await readAll(join(dir, 'o.npz'));
      for (const e of npzManifest.valid.find((v) => v.file === file)?.tensors ?? []) {
        expectTensor(back.get(e.name) as Tensor, e, `${file}:${e.name}`);
      }
    }
  });
});
