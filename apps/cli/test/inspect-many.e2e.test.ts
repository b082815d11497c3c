import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { encodeNpy } from '@tensorops/io';
import { writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { tempDir, tensorops } from './helpers.js';

interface Report {
  file: string;
  tensors: { name: string | null; offset: number | null }[];
}

function ok(args: string[], cwd: string): string {
  const r = tensorops(args, { cwd });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.toString();
}

const names = (report: Report): (string | null)[] => report.tensors.map((t) => t.name);

/** A small checkpoint: names out of alphabetical order, so file, name and offset orders differ. */
async function checkpoint(dir: string): Promise<void> {
  const t = (n: number) =>
    tensorFrom(
      'float32',
      [n],
      Array.from({ length: n }, (_, i) => i),
    );
  await writeTensorsFile(join(dir, 'part-1.npz'), [
    { name: 'model.layers.1.weight', data: t(2) },
    { name: 'model.layers.0.weight', data: t(3) },
    { name: 'model.layers.0.bias', data: t(1) },
    { name: 'lm_head.weight', data: t(4) },
  ]);
  await writeTensorsFile(join(dir, 'part-2.safetensors'), [
    { name: 'model.layers.10.weight', data: t(2) },
    { name: 'model.norm.weight', data: tensorFrom('bfloat16', [2], [1, 2]) },
  ]);
}

describe('tensorops inspect: several files, --filter, --sort', () => {
  it('lists several files in one call: a table each, or a JSON array', async () => {
    const dir = tempDir();
    await checkpoint(dir);
    const text = ok(['inspect', 'part-1.npz', 'part-2.safetensors'], dir);
    expect(text).toMatch(
      /^part-1\.npz: npz, 4 tensors, [\s\S]*\npart-2\.safetensors: safetensors, 2 tensors, /,
    );
    expect(text.split('\n\n')).toHaveLength(2);
    const docs: Report[] = JSON.parse(
      ok(['inspect', 'part-1.npz', 'part-2.safetensors', '--json'], dir),
    );
    expect(docs.map((d) => d.file)).toEqual(['part-1.npz', 'part-2.safetensors']);
    // One file stays one document, as before.
    expect(JSON.parse(ok(['inspect', 'part-1.npz', '--json'], dir)).file).toBe('part-1.npz');
  });

  it('--filter keeps the names a glob matches (fnmatch: * crosses dots)', async () => {
    const dir = tempDir();
    await checkpoint(dir);
    const filtered = (glob: string): (string | null)[][] =>
      (
        JSON.parse(
          ok(['inspect', 'part-1.npz', 'part-2.safetensors', '--filter', glob, '--json'], dir),
        ) as Report[]
      ).map(names);
    expect(filtered('model.layers.*.weight')).toEqual([
      ['model.layers.1.weight', 'model.layers.0.weight'],
      ['model.layers.10.weight'],
    ]);
    expect(filtered('model.layers.?.*')).toEqual([
      ['model.layers.1.weight', 'model.layers.0.weight', 'model.layers.0.bias'],
      [],
    ]);
    expect(filtered('*head*')).toEqual([['lm_head.weight'], []]);
    expect(filtered('model.[!l]*')).toEqual([[], ['model.norm.weight']]);
    expect(filtered('nothing')).toEqual([[], []]);
  });

  it('--sort name and --sort offset; the default is file order', async () => {
    const dir = tempDir();
    await checkpoint(dir);
    const order = (...flags: string[]): Report =>
      JSON.parse(ok(['inspect', 'part-1.npz', '--json', ...flags], dir));
    const fileOrder = [
      'model.layers.1.weight',
      'model.layers.0.weight',
      'model.layers.0.bias',
      'lm_head.weight',
    ];
    expect(names(order())).toEqual(fileOrder);
    expect(names(order('--sort', 'file'))).toEqual(fileOrder);
    expect(names(order('--sort', 'name'))).toEqual([...fileOrder].sort());
    const byOffset = order('--sort', 'offset').tensors.map((t) => t.offset as number);
    expect(byOffset).toEqual([...byOffset].sort((a, b) => a - b));
    const bad = tensorops(['inspect', 'part-1.npz', '--sort', 'size'], { cwd: dir });
    expect(bad.stderr).toBe(
      "tensorops: error: --sort takes one of file, name, offset, got 'size'\n",
    );
    expect(bad.status).toBe(2);
  });
});

describe('tensorops inspect --verify', () => {
  it('passes good files of every format, printing the same listing', async () => {
    const dir = tempDir();
    await checkpoint(dir);
    await writeTensorsFile(
      join(dir, 'packed.npz'),
      [{ name: 'b', data: tensorFrom('bool', [3], [true, false, true]) }],
      { compress: true },
    );
    writeFileSync(join(dir, 'one.npy'), encodeNpy(tensorFrom('int64', [2], [1n, 2n])));
    const files = ['part-1.npz', 'part-2.safetensors', 'packed.npz', 'one.npy'];
    const verified = tensorops(['inspect', ...files, '--verify'], { cwd: dir });
    expect(verified.status).toBe(0);
    expect(verified.stdout.toString()).toBe(ok(['inspect', ...files], dir));
    expect(verified.stderr.split('\n')).toEqual([
      'tensorops: verified part-1.npz: 4 tensors, 40 B read (each tensor fills its declared size; CRC-32 and sizes of each member)',
      'tensorops: verified part-2.safetensors: 2 tensors, 12 B read (each tensor fills its declared size)',
      'tensorops: verified packed.npz: 1 tensor, 3 B read (each tensor fills its declared size; CRC-32 and sizes of each member; bool bytes 0 or 1)',
      'tensorops: verified one.npy: 1 tensor, 16 B read (each tensor fills its declared size)',
      '',
    ]);
    // -q leaves the report alone; --json stays one document on stdout.
    expect(ok(['inspect', ...files, '--verify', '-q'], dir)).toBe(ok(['inspect', ...files], dir));
    const json = tensorops(['inspect', 'one.npy', '--verify', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout.toString()).tensors[0].nbytes).toBe(16);
    expect(json.stderr).toBe(
      'tensorops: verified one.npy: 1 tensor, 16 B read (each tensor fills its declared size)\n',
    );
  });

  it('a flipped data byte in an .npz member fails its CRC, naming the tensor; exit 1', async () => {
    const dir = tempDir();
    await checkpoint(dir);
    const doc: Report = JSON.parse(ok(['inspect', 'part-1.npz', '--json'], dir));
    const target = doc.tensors.find((t) => t.name === 'model.layers.0.bias');
    const bytes = readFileSync(join(dir, 'part-1.npz'));
    const at = target?.offset as number;
    bytes[at] = (bytes[at] as number) ^ 0x40;
    writeFileSync(join(dir, 'part-1.npz'), bytes);
    // Headers alone do not see it.
    ok(['inspect', 'part-1.npz'], dir);
    const r = tensorops(['inspect', 'part-2.safetensors', 'part-1.npz', '--verify'], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toMatch(
      /^tensorops: error: part-1\.npz: tensor 'model\.layers\.0\.bias' fails verification: .*CRC-32 mismatch.*\n$/,
    );
  });

  it('a bool byte other than 0 or 1 fails, in .npy and .safetensors', async () => {
    const dir = tempDir();
    const npy = Buffer.from(encodeNpy(tensorFrom('bool', [4], [true, false, true, true])));
    npy[npy.length - 2] = 2;
    writeFileSync(join(dir, 'flags.npy'), npy);
    await writeTensorsFile(join(dir, 'flags.safetensors'), [
      { name: 'mask', data: tensorFrom('bool', [3], [true, true, false]) },
    ]);
    const st = readFileSync(join(dir, 'flags.safetensors'));
    st[st.length - 1] = 0xff;
    writeFileSync(join(dir, 'flags.safetensors'), st);
    const a = tensorops(['inspect', 'flags.npy', '--verify'], { cwd: dir });
    expect(a.stderr).toBe(
      'tensorops: error: flags.npy: fails verification: bool byte 2 is 2, not 0 or 1\n',
    );
    expect(a.status).toBe(1);
    const b = tensorops(['inspect', 'flags.safetensors', '--verify'], { cwd: dir });
    expect(b.stderr).toBe(
      "tensorops: error: flags.safetensors: tensor 'mask' fails verification: bool byte 2 is 255, not 0 or 1\n",
    );
    expect(b.status).toBe(1);
  });

  it('a deflated member that no longer inflates fails, though inspect alone lists it', async () => {
    const dir = tempDir();
    await writeTensorsFile(
      join(dir, 'z.npz'),
      [
        {
          name: 'x',
          data: tensorFrom(
            'int32',
            [64],
            Array.from({ length: 64 }, (_, i) => i),
          ),
        },
      ],
      { compress: true },
    );
    const bytes = readFileSync(join(dir, 'z.npz'));
    // The deflate stream starts after the 30-byte local header and the member name (x.npy).
    const at = 30 + 'x.npy'.length + 10;
    bytes[at] = (bytes[at] as number) ^ 0xff;
    writeFileSync(join(dir, 'z.npz'), bytes);
    expect(ok(['inspect', 'z.npz'], dir)).toContain('  x  not a tensor: ');
    const r = tensorops(['inspect', 'z.npz', '--verify'], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^tensorops: error: z\.npz: tensor 'x' fails verification: .*deflate data[^\n]+\n$/,
    );
  });
});
