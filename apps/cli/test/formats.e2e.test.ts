import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gather, tensorFrom } from '@tensorops/core';
import { decodeNpy, encodeNpy } from '@tensorops/io';
import { openTensorFile, readTensorFile, writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { listDir, REPO, repoArg, tempDir, tensorops } from './helpers.js';

const st = (name: string): string => join(REPO, 'fixtures', 'safetensors', name);
const npz = (name: string): string => join(REPO, 'fixtures', 'npz', name);

describe('tensor references work in every command', () => {
  it('gather takes data from FILE.npz:NAME and indices from FILE.safetensors:NAME', async () => {
    const dir = tempDir();
    const ids = join(dir, 'ids.safetensors');
    await writeTensorsFile(ids, [
      { name: 'rows', data: tensorFrom('int64', [3], [2, 0, -1]) },
      { name: 'other', data: tensorFrom('int8', [1], [0]) },
    ]);
    const r = tensorops(['gather', `${npz('savez-compressed.npz')}:ints`, `${ids}:rows`]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const data = await readTensorFile(npz('savez.npz'), 'ints');
    const expected = gather(data, tensorFrom('int64', [3], [2, 0, -1]));
    expect(r.stdout.equals(Buffer.from(encodeNpy(expected)))).toBe(true);
  });

  it(':NAME may be left out for a one-tensor file, and is required otherwise', () => {
    const idx = join(tempDir(), 'i.npy');
    copyFileSync(join(REPO, 'fixtures', 'cli', 'idx_axis0_i32.npy'), idx);
    const one = tensorops(['gather', npz('single.npz'), idx, '--json']);
    expect(one.status).toBe(0);
    const positional = repoArg('fixtures', 'npz', 'positional.npz');
    const many = tensorops(['gather', positional, idx]);
    expect(many.status).toBe(1);
    expect(many.stderr).toBe(
      `tensorops: error: ${positional}: holds 2 tensors ('arr_0', 'arr_1'); pick one as ${positional}:NAME\n`,
    );
  });

  it('paths with colons: the longest existing file wins', async () => {
    const dir = tempDir();
    const path = join(dir, 'run:3.safetensors');
    await writeTensorsFile(path, [
      { name: 'a:b', data: tensorFrom('int32', [2], [7, 8]) },
      { name: 'c', data: tensorFrom('int32', [1], [9]) },
    ]);
    const idx = join(dir, 'idx:1.npy');
    await writeTensorsFile(idx, [{ name: 'x', data: tensorFrom('int8', [1], [1]) }]);
    const r = tensorops(['gather', `${path}:a:b`, idx, '--json']);
    expect(r.stderr).toBe('');
    expect(r.stdout.toString()).toBe('{"dtype":"int32","shape":[1],"data":[8]}\n');
  });

  it('a bfloat16 tensor gathers bit-exactly; piped .npy output becomes float32, with a note', async () => {
    const idx = join(tempDir(), 'i.npy');
    await writeTensorsFile(idx, [{ name: 'x', data: tensorFrom('int32', [2], [3, 0]) }]);
    const r = tensorops(['gather', st('single.safetensors'), idx]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'tensorops: note: the result (bfloat16) written as float32, exactly: .npy has no bfloat16\n',
    );
    const src = await readTensorFile(st('single.safetensors'));
    const out = decodeNpy(new Uint8Array(r.stdout));
    expect(out.shape).toEqual([2, 3]);
    const f32 = new Uint32Array(out.data.buffer, out.data.byteOffset, 6);
    const bf = new Uint16Array(src.data.buffer, src.data.byteOffset, 12);
    expect(Array.from(f32)).toEqual([9, 10, 11, 0, 1, 2].map((i) => (bf[i] as number) * 65536));
    // Into .safetensors it stays bfloat16.
    const dir = tempDir();
    expect(
      tensorops(['gather', st('single.safetensors'), idx, '-o', join(dir, 'r.safetensors')]).stderr,
    ).toBe('');
    const kept = await readTensorFile(join(dir, 'r.safetensors'));
    expect(kept.dtype).toBe('bfloat16');
  });
});

describe('-o picks the format by extension', () => {
  const data = join(REPO, 'fixtures', 'cli', 'data.npy');
  const idx = join(REPO, 'fixtures', 'cli', 'idx.npy');
  const golden = readFileSync(join(REPO, 'fixtures', 'cli', 'take_axis1.npy'));

  it('.npy, .npz and .safetensors hold the same bytes; the tensor is named after the file', async () => {
    const dir = tempDir();
    for (const ext of ['npy', 'npz', 'safetensors']) {
      const out = join(dir, `rows.${ext}`);
      const r = tensorops(['gather', data, idx, '--axis', '1', '-o', out]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const f = await openTensorFile(out);
      expect(f.format).toBe(ext);
      expect(f.tensors.map((t) => t.name)).toEqual([ext === 'npy' ? null : 'rows']);
      const t = await f.read(f.get());
      await f.close();
      expect(Buffer.from(encodeNpy(t)).equals(golden)).toBe(true);
    }
    expect(listDir(dir)).toEqual(['rows.npy', 'rows.npz', 'rows.safetensors']);
  });

  it('-o FILE.npz:NAME names the tensor; a .npy has no names', async () => {
    const dir = tempDir();
    expect(
      tensorops(['gather', data, idx, '--axis', '1', '-o', `${join(dir, 'o.npz')}:picked/rows`])
        .status,
    ).toBe(0);
    expect((await openTensorFile(join(dir, 'o.npz'))).tensors.map((t) => t.name)).toEqual([
      'picked/rows',
    ]);
    const r = tensorops(['gather', data, idx, '--axis', '1', '-o', `${join(dir, 'o.npy')}:x`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `tensorops: error: ${join(dir, 'o.npy')}: a .npy file holds one unnamed tensor; drop ':x'\n`,
    );
  });

  it('another extension needs --format (a usage error without it, no file written)', () => {
    const dir = tempDir();
    const out = join(dir, 'rows.bin');
    expect(tensorops(['gather', data, idx, '--axis', '1', '-o', out]).status).toBe(2);
    expect(existsSync(out)).toBe(false);
    const r = tensorops(['gather', data, idx, '--axis', '1', '-o', out, '--format', 'npy']);
    expect(r.status).toBe(0);
    expect(readFileSync(out).equals(golden)).toBe(true);
  });
});
