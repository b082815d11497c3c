// Sharded checkpoints (`*.safetensors.index.json`) wherever a tensor file goes: inspect, gather,
// convert and FILE:NAME references. Fixtures: scripts/fixtures/checkpoints.py (official writer).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Tensor, tensorFrom } from '@tensorops/core';
import { decodeNpy, encodeSafetensors } from '@tensorops/io';
import { openTensorFile, readTensorFile } from '@tensorops/io/node';
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

  describe('with more shards than the process may hold files open', () => {
    // Far more shards than descriptors: a run that kept every shard open would fail with EMFILE.
    const SHARDS = 3000;
    const OPEN_FILES = 256;
    /** Shard k holds float32 `t{k}` = [k, k+1, k+2]; the last one also int64 `idx` = [2, 0]. */
    const manyShards = (): string => {
      const dir = tempDir();
      const map: Record<string, string> = {};
      for (let k = 0; k < SHARDS; k++) {
        const shard = `s${k}.safetensors`;
        const entries: { name: string; tensor: Tensor }[] = [
          { name: `t${k}`, tensor: tensorFrom('float32', [3], [k, k + 1, k + 2]) },
        ];
        if (k === SHARDS - 1)
          entries.push({ name: 'idx', tensor: tensorFrom('int64', [2], [2, 0]) });
        for (const { name } of entries) map[name] = shard;
        writeFileSync(join(dir, shard), encodeSafetensors(entries));
      }
      const index = join(dir, 'many.safetensors.index.json');
      writeFileSync(index, JSON.stringify({ weight_map: map }));
      return index;
    };
    const values = (bytes: Uint8Array): number[] =>
      Array.from(new Float32Array(bytes.slice().buffer));

    it('inspect, --verify and convert of the whole index', async () => {
      const index = manyShards();
      const limit = { openFiles: OPEN_FILES, timeoutMs: 60_000 };
      const listed = tensorops(['inspect', index, '--json'], limit);
      expect(listed.stderr).toBe('');
      expect(listed.status).toBe(0);
      const doc = JSON.parse(listed.stdout.toString());
      expect(doc.shards).toBe(SHARDS);
      expect(doc.tensors).toHaveLength(SHARDS + 1);
      const verified = tensorops(['inspect', index, '--verify'], limit);
      expect(verified.status).toBe(0);
      // Every tensor is read: 12 bytes in each shard and the 16 of `idx`.
      const read = `${((SHARDS * 12 + 16) / 1024).toFixed(1)} KiB read`;
      expect(verified.stderr).toContain(
        `${SHARDS + 1} tensors, ${read} (each tensor fills its declared size; each of ${SHARDS} shards holds exactly`,
      );
      const out = join(tempDir(), 'merged.safetensors');
      const merged = tensorops(['convert', index, out], limit);
      expect(merged.stderr).toBe('');
      expect(merged.status).toBe(0);
      const file = await openTensorFile(out);
      try {
        expect(file.tensors).toHaveLength(SHARDS + 1);
        for (let k = 0; k < SHARDS; k++) {
          expect(values((await file.read(file.get(`t${k}`))).data), `t${k}`).toEqual([
            k,
            k + 1,
            k + 2,
          ]);
        }
      } finally {
        await file.close();
      }
    });

    it('gathers with the data and the indices in two shards', () => {
      const index = manyShards();
      const out = join(tempDir(), 'rows.npy');
      const r = tensorops(['gather', `${index}:t7`, `${index}:idx`, '-o', out], {
        openFiles: OPEN_FILES,
        timeoutMs: 60_000,
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const got = decodeNpy(new Uint8Array(readFileSync(out)));
      expect(values(got.data)).toEqual([9, 7]);
    });
  });
});
