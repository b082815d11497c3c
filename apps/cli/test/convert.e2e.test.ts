import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { tensorFrom } from '@tensorops/core';
import { decodeNpy, encodeNpy } from '@tensorops/io';
import { openTensorFile, readTensorFile, writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { listDir, REPO, repoArg, tempDir, tensorops } from './helpers.js';

const st = (name: string): string => join(REPO, 'fixtures', 'safetensors', name);
const npz = (name: string): string => join(REPO, 'fixtures', 'npz', name);
const npy = (name: string): string => join(REPO, 'fixtures', 'npy', name);

async function names(path: string): Promise<(string | null)[]> {
  const f = await openTensorFile(path);
  await f.close();
  return f.tensors.map((t) => t.name);
}

/** float32 bytes of bfloat16 bytes: each value is the upper half of a float32. */
function bf16ToF32(bytes: Uint8Array): Buffer {
  const out = Buffer.alloc(bytes.length * 2);
  for (let i = 0; i < bytes.length / 2; i++) {
    out[i * 4 + 2] = bytes[i * 2] as number;
    out[i * 4 + 3] = bytes[i * 2 + 1] as number;
  }
  return out;
}

describe('tensorops convert', () => {
  it('one .safetensors tensor to .npy: bfloat16 becomes float32 exactly, with a note', async () => {
    const dir = tempDir();
    const out = join(dir, 'embed.npy');
    const r = tensorops(['convert', `${st('single.safetensors')}:embed.weight`, out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      "tensorops: note: tensor 'embed.weight' (bfloat16) written as float32, exactly: .npy has no bfloat16\n",
    );
    const src = await readTensorFile(st('single.safetensors'));
    const got = decodeNpy(new Uint8Array(readFileSync(out)));
    expect(got.dtype).toBe('float32');
    expect(got.shape).toEqual([4, 3]);
    expect(Buffer.from(got.data).equals(bf16ToF32(src.data))).toBe(true);
    expect(tensorops(['convert', '-q', st('single.safetensors'), out]).stderr).toBe('');
  });

  it('F8_E4M3FNUZ / F8_E5M2FNUZ from the official writer become float32 in .npz, as ml_dtypes gives them', async () => {
    const src = join(REPO, 'fixtures', 'checkpoints', 'fnuz.safetensors');
    const table = JSON.parse(
      readFileSync(join(REPO, 'fixtures', 'checkpoints', 'fnuz.json'), 'utf8'),
    ) as Record<string, string[]>;
    const out = join(tempDir(), 'fnuz.npz');
    const r = tensorops(['convert', src, out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      "tensorops: note: tensor 'float8_e4m3fnuz' (float8_e4m3fnuz) written as float32, exactly",
    );
    for (const dtype of ['float8_e4m3fnuz', 'float8_e5m2fnuz']) {
      const t = await readTensorFile(out, dtype);
      expect([t.dtype, t.shape]).toEqual(['float32', [16, 16]]);
      const bits = Array.from(new Uint32Array(t.data.slice().buffer), (b) =>
        b.toString(16).padStart(8, '0'),
      );
      // The one NaN (0x80) carries no sign: tensorops writes the canonical quiet NaN.
      expect(bits).toEqual((table[dtype] as string[]).map((b, i) => (i === 0x80 ? '7fc00000' : b)));
    }
  });

  it('a whole .npz into .safetensors carries every tensor, bit for bit, names with /', async () => {
    const dir = tempDir();
    const out = join(dir, 'all.safetensors');
    const src = npz('positional.npz');
    const r = tensorops(['convert', src, out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(await names(out)).toEqual(['arr_1', 'arr_0']); // float64 before uint16: the writer's layout
    for (const name of ['arr_0', 'arr_1']) {
      const a = await readTensorFile(src, name);
      const b = await readTensorFile(out, name);
      expect(b.dtype).toBe(a.dtype);
      expect(Buffer.from(b.data).equals(Buffer.from(a.data))).toBe(true);
    }
    // numpy's Fortran-order, big-endian and '/'-named members, deflated: normalised on the way.
    const back = join(dir, 'back.npz');
    expect(tensorops(['convert', npz('savez-compressed.npz'), join(dir, 'mid.npz')]).status).toBe(
      0,
    );
    expect(tensorops(['convert', join(dir, 'mid.npz'), back, '--compress']).status).toBe(0);
    for (const name of ['floats_f', 'big_endian', 'layer/0/weight', 'words', 'café']) {
      const a = await readTensorFile(npz('savez.npz'), name);
      const b = await readTensorFile(back, name);
      expect(b.dtype, name).toBe(a.dtype);
      expect(Buffer.from(b.data).equals(Buffer.from(a.data)), name).toBe(true);
    }
    const f = await openTensorFile(back);
    expect(f.tensors.every((t) => t.compression === 'deflate')).toBe(true);
    await f.close();
  });

  it('.safetensors metadata is kept in .safetensors and dropped, with a note, in .npz', async () => {
    const dir = tempDir();
    const src = join(dir, 'm.safetensors');
    await writeTensorsFile(
      src,
      [
        { name: 'a', data: tensorFrom('float32', [2], [1, 2]) },
        { name: 'b', data: tensorFrom('int8', [1], [-1]) },
      ],
      { metadata: { format: 'pt', step: '7' } },
    );
    expect(tensorops(['convert', src, join(dir, 'copy.safetensors')]).status).toBe(0);
    const copy = await openTensorFile(join(dir, 'copy.safetensors'));
    expect({ ...copy.metadata }).toEqual({ format: 'pt', step: '7' });
    await copy.close();
    expect(readFileSync(join(dir, 'copy.safetensors')).equals(readFileSync(src))).toBe(true);
    const r = tensorops(['convert', src, join(dir, 'm.npz')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'tensorops: note: __metadata__ (2 keys) not written: .npz has no place for it\n',
    );
  });

  it('names a single tensor by OUT:NAME, else its own name, else the output stem', async () => {
    const dir = tempDir();
    expect(
      tensorops(['convert', npy('f4-le-c.npy'), join(dir, 'weights.safetensors')]).status,
    ).toBe(0);
    expect(await names(join(dir, 'weights.safetensors'))).toEqual(['weights']);
    expect(tensorops(['convert', npy('f4-le-c.npy'), `${join(dir, 'w.npz')}:layer/x`]).status).toBe(
      0,
    );
    expect(await names(join(dir, 'w.npz'))).toEqual(['layer/x']);
    expect(tensorops(['convert', `${npz('savez.npz')}:ints`, join(dir, 'i.npz')]).status).toBe(0);
    expect(await names(join(dir, 'i.npz'))).toEqual(['ints']);
  });

  it('into .npy needs :NAME unless the source holds one tensor', () => {
    const dir = tempDir();
    const out = join(dir, 'x.npy');
    const positional = repoArg('fixtures', 'npz', 'positional.npz');
    const r = tensorops(['convert', positional, out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `tensorops: error: ${positional} holds 2 tensors, a .npy file one: pick one as ${positional}:NAME or write .npz/.safetensors; 'arr_0', 'arr_1'\n`,
    );
    expect(listDir(dir)).toEqual([]);
    expect(tensorops(['convert', npz('single.npz'), out]).status).toBe(0);
    expect(decodeNpy(new Uint8Array(readFileSync(out))).shape).toEqual([3, 2]);
  });

  it('stdin and stdout: - on either side is .npy', () => {
    const t = tensorFrom('int16', [2, 2], [1, -2, 3, -4]);
    const r = tensorops(['convert', '-', '-'], { input: encodeNpy(t) });
    expect(r.status).toBe(0);
    expect(r.stdout.equals(Buffer.from(encodeNpy(t)))).toBe(true);
    const bf = tensorops(['convert', `${st('single.safetensors')}:embed.weight`, '-']);
    expect(decodeNpy(new Uint8Array(bf.stdout)).dtype).toBe('float32');
  });

  it('refuses what cannot be converted exactly, leaving no output', () => {
    const dir = tempDir();
    const allDtypes = repoArg('fixtures', 'safetensors', 'all-dtypes.safetensors');
    const sub = tensorops(['convert', allDtypes, join(dir, 'x.npz')]);
    expect(sub.status).toBe(1);
    expect(sub.stderr).toBe(
      `tensorops: error: ${allDtypes}: tensor 't_f6_e3m2' has dtype F6_E3M2 (float6_e3m2fn), packed below one byte per element: it can be inspected, not loaded, converted or gathered\n`,
    );
    const str = tensorops(['convert', npy('U5-le-c.npy'), join(dir, 'x.safetensors')]);
    expect(str.status).toBe(1);
    expect(str.stderr).toBe(
      `tensorops: error: ${join(dir, 'x.safetensors')}: .safetensors cannot store U5 (tensor 'x') exactly: it has no string dtype; keep strings in .npy or .npz\n`,
    );
    const c128 = tensorops(['convert', npy('c16-le-c.npy'), join(dir, 'x.safetensors')]);
    expect(c128.stderr).toContain('.safetensors cannot store complex128');
    expect(tensorops(['convert', npy('f4-le-c.npy'), `${join(dir, 'y.npy')}:name`]).status).toBe(2);
    expect(
      tensorops(['convert', npy('f4-le-c.npy'), join(dir, 'y.npy'), '-o', 'z.npy']).status,
    ).toBe(2);
    expect(listDir(dir)).toEqual([]);
    expect(existsSync(join(dir, 'x.npz'))).toBe(false);
  });

  it('--help explains OUT and shows examples', () => {
    const text = tensorops(['convert', '--help']).stdout.toString();
    expect(text).toContain('tensorops convert model.safetensors:embed.weight embed.npy');
    expect(text).toContain('--compress');
  });
});

/** CRC-32 as the zip format defines it (reflected polynomial 0xedb88320), bit by bit. */
function crc32Reference(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** The first member of a (non-zip64) zip: its central directory CRC-32 and its bytes. */
function firstMember(zip: Buffer): { crc32: number; bytes: Uint8Array } {
  const end = zip.length - 22; // the end record, with no comment
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const cd = zip.readUInt32LE(end + 16);
  expect(zip.readUInt32LE(cd)).toBe(0x02014b50);
  const method = zip.readUInt16LE(cd + 10);
  const compressed = zip.readUInt32LE(cd + 20);
  const local = zip.readUInt32LE(cd + 42);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + compressed);
  return {
    crc32: zip.readUInt32LE(cd + 16),
    bytes: method === 8 ? inflateRawSync(data) : data,
  };
}

describe('tensorops convert: the .npz it writes', () => {
  it('gives each member, stored or deflated, the CRC-32 of its bytes', () => {
    // Several MiB, so the checksum runs on many chunks, each continuing the one before.
    const values = new Uint8Array(5 << 20);
    let x = 1;
    for (let i = 0; i < values.length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      values[i] = x >>> 24;
    }
    const dir = tempDir();
    const input = join(dir, 'x.npy');
    writeFileSync(input, encodeNpy(tensorFrom('uint8', [values.length], values)));
    for (const extra of [[], ['--compress']]) {
      const out = join(dir, `x${extra.length}.npz`);
      const r = tensorops(['convert', input, out, ...extra]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const member = firstMember(readFileSync(out));
      expect(Buffer.from(member.bytes).equals(readFileSync(input))).toBe(true);
      expect(member.crc32).toBe(crc32Reference(member.bytes));
    }
  });
});

describe('tensorops convert: a corrupt .npz member', () => {
  it('fails the write with one line, exit 1 and no file, whatever the target', () => {
    const input = npz('crc-stored.npz');
    for (const [source, target, extra] of [
      [input, 'out.npz', []],
      [input, 'out.npz', ['--compress']],
      [`${input}:x`, 'out.npz:y', []],
      [input, 'out.safetensors', []],
    ] as const) {
      const dir = tempDir();
      const r = tensorops(['convert', source, join(dir, target), ...extra]);
      expect(r.status, target).toBe(1);
      expect(r.stderr).toMatch(
        /^tensorops: error: .*\.npz member 'x\.npy' CRC-32 mismatch: [^\n]*\n$/,
      );
      expect(listDir(dir)).toEqual([]);
    }
  });
});
