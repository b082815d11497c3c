// Sharded checkpoints (`*.safetensors.index.json`) wherever a tensor file goes: inspect, gather,
// convert and FILE:NAME references. Fixtures: scripts/fixtures/checkpoints.py (official writer).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeNpy } from '@tensorops/io';
import { readTensorFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { REPO, repoArg, tempDir, tensorops } from './helpers.js';

// As the CLI is given it, relative to the repository: messages quote it back.
const DIR = repoArg('fixtures', 'checkpoints', 'sharded');
const INDEX = join(DIR, 'model.safetensors.index.json');
const manifest = JSON.parse(
  readFileSync(join(REPO, 'fixtures', 'checkpoints', 'manifest.json'), 'utf8'),
) as {
  tensors: { name: string; shard: string; dtype: string; shape: number[]; b64: string }[];
  invalid: { file: string; includes: string; verifyOnly: boolean }[];
};
const expected = (name: string): Buffer => {
  const t = manifest.tensors.find((e) => e.name === name);
  if (t === undefined) throw new Error(`no fixture tensor ${name}`);
  return Buffer.from(t.b64, 'base64');
};

describe('sharded checkpoints', () => {
  it('inspect lists every tensor with its shard', () => {
    const r = tensorops(['inspect', INDEX]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const text = r.stdout.toString();
    expect(text.split('\n')[0]).toBe(`${INDEX}: safetensors, 3 shards, 7 tensors, 5.12 KiB`);
    expect(text).toContain(
      '  model.norm.weight                       bfloat16         [8]         16    2248  model-00001-of-00003.safetensors  BF16\n',
    );
    const doc = JSON.parse(tensorops(['inspect', INDEX, '--json']).stdout.toString());
    expect(doc.shards).toBe(3);
    expect(
      doc.tensors.map((t: { name: string; shard: string }) => [t.name, t.shard]).sort(),
    ).toEqual(manifest.tensors.map((t) => [t.name, t.shard]).sort());
  });

  it('gathers rows through FILE:NAME, reading only that shard', () => {
    const dir = tempDir();
    const out = join(dir, 'rows.npy');
    const r = tensorops([
      'gather',
      `${INDEX}:lm_head.weight`,
      join(REPO, 'fixtures', 'cli', 'idx_axis0_i32.npy'),
      '-o',
      out,
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = decodeNpy(new Uint8Array(readFileSync(out)));
    const idx = decodeNpy(
      new Uint8Array(readFileSync(join(REPO, 'fixtures', 'cli', 'idx_axis0_i32.npy'))),
    );
    const rows = Array.from(new Int32Array(idx.data.slice().buffer));
    const src = expected('lm_head.weight');
    const want = Buffer.concat(
      rows.map((i) => (i + 64) % 64).map((i) => src.subarray(i * 32, i * 32 + 32)),
    );
    expect(got.shape).toEqual([...idx.shape, 8]);
    expect(Buffer.from(got.data).equals(want)).toBe(true);
    // The tensor's shard is there; another one missing does not matter.
    const lazy = tensorops([
      'inspect',
      `${join(DIR, 'missing-shard.safetensors.index.json')}:model.norm.weight`,
    ]);
    expect(lazy.status).toBe(0);
  });

  it('converts the whole checkpoint into one .safetensors file, bit for bit', async () => {
    const out = join(tempDir(), 'merged.safetensors');
    const r = tensorops(['convert', INDEX, out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const t of manifest.tensors) {
      const got = await readTensorFile(out, t.name);
      expect([got.dtype, got.shape], t.name).toEqual([t.dtype, t.shape]);
      expect(Buffer.from(got.data).equals(expected(t.name)), t.name).toBe(true);
    }
  });

  it('--verify also checks that each shard holds exactly the tensors the map gives it', () => {
    const good = tensorops(['inspect', INDEX, '--verify']);
    expect(good.status).toBe(0);
    expect(good.stderr).toMatch(
      /^tensorops: verified .*\.index\.json: \d+ tensors, .* read \(each tensor fills its declared size; each of \d+ shards holds exactly the tensors its map gives it\)\n$/,
    );
    for (const bad of manifest.invalid.filter((b) => b.verifyOnly)) {
      const path = join(DIR, bad.file);
      expect(tensorops(['inspect', path]).status).toBe(0);
      const r = tensorops(['inspect', path, '--verify']);
      expect(r.status).toBe(1);
      expect(r.stdout.length).toBe(0);
      expect(r.stderr).toBe(`tensorops: error: ${path}: ${bad.includes}\n`);
    }
  });

  for (const bad of manifest.invalid.filter((b) => !b.verifyOnly)) {
    it(`${bad.file}: one error line, exit 1`, () => {
      const path = join(DIR, bad.file);
      const r = tensorops(['inspect', path]);
      expect(r.status).toBe(1);
      expect(r.stdout.length).toBe(0);
      expect(r.stderr.startsWith(`tensorops: error: ${path}: `)).toBe(true);
      expect(r.stderr).toContain(bad.includes);
      expect(r.stderr.split('\n')).toHaveLength(2);
    });
  }
});
