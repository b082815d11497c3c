// Sharded checkpoints written by the official safetensors package, with an index as
// huggingface_hub writes it (fixtures/checkpoints/sharded, scripts/fixtures/checkpoints.py).

import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openingAtMost } from '../src/file/reopening-sources.js';
import { openShardedFile } from '../src/file/sharded-file.js';
import type { ByteSource } from '../src/file/source.js';
import { encodeSafetensors, parseShardIndex } from '../src/index.js';
import { collectStream, gatherFromFile, openTensorFile } from '../src/node/index.js';
import { openSource } from '../src/node/source.js';
import { isShardIndexPath } from '../src/shard-index.js';
import { checkpointsManifest as manifest, SHARDED_DIR } from './format-fixtures.js';
import { expectError, expectRejection } from './helpers.js';
import { TORCH_FIXTURES, expected as torchExpected } from './torch-fixtures.js';

const INDEX = join(SHARDED_DIR, manifest.index);
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** This process's descriptors open on files under `folder` (Linux). */
function openUnder(folder: string): string[] {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(folder);
    } catch {
      return false;
    }
  });
}

/** `count` one-tensor shards `s{k}.safetensors` holding float32 [k, k+1] and their index. */
function writeManyShards(folder: string, count: number): string {
  const map: Record<string, string> = {};
  for (let k = 0; k < count; k++) {
    map[`t${k}`] = `s${k}.safetensors`;
    const tensor = tensorFrom('float32', [2], [k, k + 1]);
    writeFileSync(
      join(folder, `s${k}.safetensors`),
      encodeSafetensors([{ name: `t${k}`, tensor }]),
    );
  }
  const index = join(folder, 'm.safetensors.index.json');
  writeFileSync(index, JSON.stringify({ weight_map: map }));
  return index;
}

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the index', () => {
  it('is recognised by its name, whatever the case', () => {
    expect(isShardIndexPath('a/model.safetensors.index.json')).toBe(true);
    expect(isShardIndexPath('MODEL.SAFETENSORS.INDEX.JSON')).toBe(true);
    expect(isShardIndexPath('model.safetensors')).toBe(false);
    expect(isShardIndexPath('index.json')).toBe(false);
  });

  it('maps every tensor to its shard, in the index order; total_size as given', () => {
    const index = parseShardIndex(
      '{"metadata":{"total_size":12},"weight_map":{"b":"s2.safetensors","a":"s1.safetensors","c":"s2.safetensors"}}',
    );
    expect([...index.weightMap]).toEqual([
      ['b', 's2.safetensors'],
      ['a', 's1.safetensors'],
      ['c', 's2.safetensors'],
    ]);
    expect(index.shards).toEqual(['s2.safetensors', 's1.safetensors']);
    expect(index.totalSize).toBe(12);
    expect(parseShardIndex('{"weight_map":{}}').totalSize).toBeNull();
  });

  it('refuses shard names that leave the folder, and accepts subfolders', () => {
    for (const shard of [
      '../x.safetensors',
      'a/../../x.safetensors',
      'a/../x.safetensors',
      '/etc/x.safetensors',
      'C:x.safetensors',
      'https://example.test/x.safetensors',
      'a\\\\x.safetensors',
      './x.safetensors',
      'a//x.safetensors',
      '',
    ]) {
      const e = expectError(() => parseShardIndex(`{"weight_map":{"w":${JSON.stringify(shard)}}}`));
      expect(e.code, shard).toBe('E_FORMAT');
      expect(e.message, shard).toContain("leaves the index's folder");
    }
    expect(parseShardIndex('{"weight_map":{"w":"sub/x.safetensors"}}').shards).toEqual([
      'sub/x.safetensors',
    ]);
  });
});

describe('a sharded checkpoint as one tensor file', () => {
  it('lists every tensor with its shard and reads each bit for bit', async () => {
    const f = await openTensorFile(INDEX);
    try {
      expect(f.format).toBe('safetensors');
      expect(f.sharded).toEqual({ shards: 3, unmapped: [] });
      expect(f.metadata).toEqual({ format: 'pt' });
      expect(f.tensors.map((t) => [t.name, t.shard?.name]).sort()).toEqual(
        manifest.tensors.map((t) => [t.name, t.shard]).sort(),
      );
      for (const e of manifest.tensors) {
        const stored = f.get(e.name);
        expect(stored.formatDtype, e.name).toBe(e.stDtype);
        const t = await f.read(stored);
        expect([t.dtype, t.shape, b64(t.data)], e.name).toEqual([e.dtype, e.shape, e.b64]);
        // The stream and the ranged reader go through the shards' shared address space.
        expect(b64((await collectStream(f.stream(stored))).data), e.name).toBe(e.b64);
      }
    } finally {
      await f.close();
    }
  });

  it('gathers rows from a tensor of the second shard by byte ranges', async () => {
    const e = manifest.tensors.find((t) => t.name === 'model.layers.0.mlp.up_proj.weight');
    if (e === undefined) throw new Error('fixture');
    const f = await openTensorFile(INDEX);
    const rows = [15, 0, 7, 7];
    const out = await collectStream(
      gatherFromFile(f, f.get(e.name), tensorFrom('int32', [4], rows), { mode: 'ranged' }),
    );
    await f.close();
    const src = Buffer.from(e.b64, 'base64');
    const rowBytes = 8 * 2;
    const expected = Buffer.concat(rows.map((r) => src.subarray(r * rowBytes, (r + 1) * rowBytes)));
    expect(out.shape).toEqual([4, 8]);
    expect(Buffer.from(out.data).equals(expected)).toBe(true);
  });

  it('opens only the shard of the one tensor asked for', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tensorops-sharded-'));
    copyFileSync(INDEX, join(dir, manifest.index));
    copyFileSync(
      join(SHARDED_DIR, 'model-00002-of-00003.safetensors'),
      join(dir, 'model-00002-of-00003.safetensors'),
    );
    const index = join(dir, manifest.index);
    const f = await openTensorFile(index, { tensor: 'model.layers.0.position_ids' });
    expect(f.tensors.map((t) => t.name)).toEqual(['model.layers.0.position_ids']);
    const t = await f.read(f.get('model.layers.0.position_ids'));
    await f.close();
    expect(new BigInt64Array(t.data.slice().buffer)[0]).toBe(2n ** 53n + 1n);
    const whole = await expectRejection(openTensorFile(index));
    expect(whole.message).toBe(
      `${index}: shard 'model-00003-of-00003.safetensors' of tensor 'lm_head.bias': cannot read: no such file or directory`,
    );
    const other = await expectRejection(openTensorFile(index, { tensor: 'model.norm.weight' }));
    expect(other.message).toContain("shard 'model-00001-of-00003.safetensors' of tensor");
    const none = await expectRejection(openTensorFile(index, { tensor: 'nope' }));
    expect(none.code).toBe('E_TENSOR_NOT_FOUND');
    expect(none.message).toContain("no tensor 'nope' in the weight map (it maps 'lm_head.bias',");
  });

  it('names the shard when a shard is not a valid .safetensors file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tensorops-sharded-'));
    writeFileSync(join(dir, 'm.safetensors.index.json'), '{"weight_map":{"w":"bad.safetensors"}}');
    writeFileSync(join(dir, 'bad.safetensors'), new Uint8Array(4));
    const e = await expectRejection(openTensorFile(join(dir, 'm.safetensors.index.json')));
    expect(e.code).toBe('E_FORMAT');
    expect(e.message).toContain(
      "m.safetensors.index.json: shard 'bad.safetensors': not a .safetensors file",
    );
  });

  it('fails on the first bad shard in index order, with no shard left open', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tensorops-sharded-'));
    const folder = dir;
    const map: Record<string, string> = {};
    for (let k = 0; k < 30; k++) {
      map[`w${k}`] = `s${k}.safetensors`;
      const tensor = encodeSafetensors([{ name: `w${k}`, tensor: tensorFrom('int8', [1], [k]) }]);
      // Shards 12 and 25 are not .safetensors files; every other shard opens.
      const bytes = k === 12 || k === 25 ? new Uint8Array(4) : tensor;
      writeFileSync(join(folder, `s${k}.safetensors`), bytes);
    }
    const index = join(folder, 'm.safetensors.index.json');
    writeFileSync(index, JSON.stringify({ weight_map: map }));
    const e = await expectRejection(openTensorFile(index));
    expect(e.message).toContain(`${index}: shard 's12.safetensors': not a .safetensors file`);
    expect(openUnder(folder)).toEqual([]);
  });

  it('keeps a few shards open, however many there are, and reads every tensor', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tensorops-sharded-'));
    const count = 1000;
    const index = writeManyShards(dir, count);
    // The pool holds a few dozen shards, plus one per read in flight: far fewer than the shards.
    const atOnce = 8;
    const fewerThan = count / 10;
    const f = await openTensorFile(index);
    let most = openUnder(dir).length;
    try {
      expect(f.tensors).toHaveLength(count);
      expect(f.sharded?.shards).toBe(count);
      // In map order, one at a time.
      for (const k of f.tensors.keys()) {
        const t = await f.read(f.get(`t${k}`));
        expect(Array.from(new Float32Array(t.data.slice().buffer)), `t${k}`).toEqual([k, k + 1]);
        most = Math.max(most, openUnder(dir).length);
      }
      // Then twice over in a shuffled order, as many at once as shard headers are read.
      const order = [...f.tensors.keys(), ...f.tensors.keys()].map((k) => (k * 7919) % count);
      const all: number[] = [];
      for (let at = 0; at < order.length; at += atOnce) {
        const values = await Promise.all(
          order.slice(at, at + atOnce).map(async (k) => {
            const t = await collectStream(f.stream(f.get(`t${k}`)));
            return new Float32Array(t.data.slice().buffer)[0] as number;
          }),
        );
        most = Math.max(most, openUnder(dir).length);
        all.push(...values);
      }
      expect(all).toEqual(order);
    } finally {
      await f.close();
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(fewerThan);
    expect(openUnder(dir)).toEqual([]);
  });

  it('a shard removed or rewritten after its header was read fails its read, naming it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tensorops-sharded-'));
    const index = writeManyShards(dir, 100);
    const f = await openTensorFile(index);
    try {
      // Shards 0 and 1 were the first opened: closed since, as the others were opened.
      rmSync(join(dir, 's0.safetensors'));
      const gone = await expectRejection(f.read(f.get('t0')));
      expect(gone.message).toBe(
        `${index}: ${join(dir, 's0.safetensors')}: cannot read: no such file or directory`,
      );
      writeFileSync(join(dir, 's1.safetensors'), new Uint8Array(8));
      const changed = await expectRejection(f.read(f.get('t1')));
      expect(changed.message).toBe(
        `${index}: ${join(dir, 's1.safetensors')}: the file changed since it was opened`,
      );
      const t = await f.read(f.get('t2'));
      expect(Array.from(new Float32Array(t.data.slice().buffer))).toEqual([2, 3]);
    } finally {
      await f.close();
    }
  });

  for (const bad of manifest.invalid) {
    it(`${bad.file}: ${bad.verifyOnly ? 'opens; the check lists the unmapped tensor' : 'one error naming the tensor or shard'}`, async () => {
      const path = join(SHARDED_DIR, bad.file);
      if (bad.verifyOnly) {
        const f = await openTensorFile(path);
        await f.close();
        const [u] = f.sharded?.unmapped ?? [];
        expect(u).toBeDefined();
        expect(bad.includes).toContain(`shard '${u?.shard}' holds tensor '${u?.name}'`);
        return;
      }
      const e = await expectRejection(openTensorFile(path));
      expect(e.message.startsWith(`${path}: `)).toBe(true);
      expect(e.message).toContain(bad.includes);
      expect(e.message).not.toContain('\n');
    });
  }
});

describe('openingAtMost', () => {
  for (const [what, folder, indexName, want] of [
    [
      'safetensors',
      SHARDED_DIR,
      manifest.index,
      manifest.tensors.map((t) => ({ name: t.name, b64: t.b64 })),
    ],
    [
      'torch',
      join(TORCH_FIXTURES, 'sharded'),
      'pytorch_model.bin.index.json',
      torchExpected['sharded/pytorch_model.bin.index.json']?.tensors ?? [],
    ],
  ] as const) {
    it(`${what} shards, one open at a time: every tensor read through a reopened shard`, async () => {
      const index = join(folder, indexName);
      const opening = openingAtMost((shard) => openSource(join(folder, shard)), 1);
      const f = await openShardedFile(index, readFileSync(index, 'utf8'), opening);
      try {
        expect(want.length).toBeGreaterThan(2);
        // The shards alternate, so nearly every read finds its shard closed for the other one.
        for (const e of [...want, ...want].reverse()) {
          const stored = f.tensors.find((t) => t.name === e.name);
          if (stored === undefined) throw new Error(`no tensor ${e.name}`);
          expect(b64((await f.read(stored)).data), e.name).toBe(e.b64);
          expect(b64((await collectStream(f.stream(stored))).data), e.name).toBe(e.b64);
        }
      } finally {
        await f.close();
      }
    });
  }

  it('serves every read as the file would, with at most the limit plus the reads in flight open', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 48 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.array(fc.tuple(fc.nat(), fc.nat(60), fc.nat(60)), { minLength: 1, maxLength: 6 }),
          { maxLength: 8 },
        ),
        async (files, limit, batches) => {
          const folder = mkdtempSync(join(tmpdir(), 'tensorops-reopen-'));
          let live = 0;
          let most = 0;
          // The real opener, its handles counted as they open and close.
          const open = async (name: string): Promise<ByteSource> => {
            const source = await openSource(join(folder, name));
            most = Math.max(most, ++live);
            const close = source.close.bind(source);
            source.close = async () => {
              live--;
              await close();
            };
            return source;
          };
          const sources: ByteSource[] = [];
          try {
            for (const [k, bytes] of files.entries()) writeFileSync(join(folder, `f${k}`), bytes);
            const opening = openingAtMost(open, limit);
            for (const k of files.keys()) sources.push(await opening(`f${k}`));
            expect(most).toBeLessThanOrEqual(limit + 1);
            for (const batch of batches) {
              most = live;
              await Promise.all(
                batch.map(async ([pick, position, length]) => {
                  const bytes = files[pick % files.length] as Uint8Array;
                  const target = new Uint8Array(length);
                  const got = await (sources[pick % files.length] as ByteSource).read(
                    target,
                    position,
                  );
                  const want = bytes.subarray(Math.min(position, bytes.length), position + length);
                  expect(got).toBe(want.length);
                  expect(target.subarray(0, got)).toEqual(want);
                }),
              );
              expect(most).toBeLessThanOrEqual(limit + batch.length);
            }
          } finally {
            await Promise.all(sources.map((s) => s.close()));
            rmSync(folder, { recursive: true, force: true });
          }
          expect(live).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });
});
