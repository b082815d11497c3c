// PyTorch checkpoints wherever a tensor file goes: inspect, show, convert, gather's data input,
// FILE:NAME references, a sharded pytorch_model.bin.index.json, https:// URLs; and hostile
// archives, each one line and exit 1 with nothing run. Fixtures: scripts/fixtures/torch.py
// (torch.save; expected values from torch.load(weights_only=True)).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gather, tensorFrom } from '@tensorops/core';
import { encodeNpy } from '@tensorops/io';
import { readTensorFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { serveFolderPerTest } from '../../../packages/io/test/http-servers.js';
import {
  deepPickle,
  memoPickle,
  nestedListsPickle,
  nestedTuplesPickle,
  writeCheckpoint,
} from '../../../packages/io/test/torch-archives.js';
import {
  type ExpectedTensor,
  expected,
  expectedTensor,
  goldenTensor,
  TORCH_FIXTURES,
} from '../../../packages/io/test/torch-fixtures.js';
import { BIN, listDir, repoArg, tempDir, tensorops, tensoropsAsync } from './helpers.js';

const DIR = repoArg('fixtures', 'torch');
const ABS = TORCH_FIXTURES;

/** Every tensor of `out` (a .safetensors file) equals the golden tensors of `file`, bit for bit. */
async function expectConverted(out: string, file: string): Promise<void> {
  for (const w of expected[file]?.tensors ?? []) {
    const got = await readTensorFile(out, w.name);
    const want = goldenTensor(file, w.name);
    expect([got.dtype, got.shape], w.name).toEqual([want.dtype, want.shape]);
    expect(Buffer.from(got.data).equals(Buffer.from(want.data)), w.name).toBe(true);
  }
}

describe('torch checkpoints', () => {
  it('inspect lists the tensors, their storages and views, and counts the other entries', () => {
    const r = tensorops(['inspect', join(DIR, 'views.pt')]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const text = r.stdout.toString();
    expect(text.split('\n')[0]).toMatch(/^fixtures\/torch\/views\.pt: torch, 8 tensors, /);
    expect(text).toMatch(
      /transposed +float32 +\[6, 4\] +96 +- +torch\.float32, storage 0 \(shared with 4 more\), strides \[1, 6\]/,
    );
    expect(text).toMatch(/lm_head\.weight .*storage 1 \(shared with 1 more\)/);
    expect(text).toContain('  and 3 entries that are not tensors\n');
    const doc = JSON.parse(
      tensorops(['inspect', join(DIR, 'views.pt'), '--json']).stdout.toString(),
    );
    expect(doc.other_entries).toBe(3);
    for (const t of doc.tensors) {
      const w = expected['views.pt']?.tensors.find((e) => e.name === t.name) as ExpectedTensor;
      expect([t.dtype, t.shape, t.storage.shared_with > 0]).toEqual([w.dtype, w.shape, w.shared]);
    }
  });

  it('convert pytorch_model.bin model.safetensors: each tensor its own bytes, as torch.load gives them', async () => {
    for (const file of ['views.pt', 'big-endian.pt', 'model.pt']) {
      const dir = tempDir();
      const bin = join(dir, 'pytorch_model.bin');
      writeFileSync(bin, readFileSync(join(ABS, file)));
      const out = join(dir, 'model.safetensors');
      const r = tensorops(['convert', bin, out]);
      expect(r.stderr, file).toBe('');
      expect(r.status).toBe(0);
      await expectConverted(out, file);
    }
  });

  it('every dtype converts bit for bit (complex128 to .npy: .safetensors has none)', async () => {
    const dir = tempDir();
    for (const w of expected['dtypes.pt']?.tensors ?? []) {
      const out = join(dir, w.dtype === 'complex128' ? `${w.name}.npy` : `${w.name}.safetensors`);
      const r = tensorops(['convert', `${join(DIR, 'dtypes.pt')}:${w.name}`, out]);
      expect(r.stderr, w.name).toBe('');
      const got = await readTensorFile(out);
      expect([got.dtype, got.shape], w.name).toEqual([w.dtype, w.shape]);
      expect(Buffer.from(got.data).equals(Buffer.from(w.b64, 'base64')), w.name).toBe(true);
    }
  });

  it('show, gather and FILE:NAME read views and tied weights as torch does', () => {
    const dir = tempDir();
    const idx = join(dir, 'idx.npy');
    const indices = tensorFrom('int64', [3], [1, 0, -1]);
    writeFileSync(idx, encodeNpy(indices));
    for (const name of ['transposed', 'every_other', 'row_slice', 'lm_head.weight']) {
      const out = join(dir, `${name}.npy`);
      const r = tensorops(['gather', `${join(DIR, 'views.pt')}:${name}`, idx, '-o', out]);
      expect(r.stderr, name).toBe('');
      const want = gather(goldenTensor('views.pt', name), indices, { axis: 0 });
      expect(readFileSync(out).equals(Buffer.from(encodeNpy(want))), name).toBe(true);
    }
    const shown = tensorops([
      'show',
      `${join(DIR, 'model.pt')}:norm.num_batches_tracked`,
      '--json',
    ]);
    expect(JSON.parse(shown.stdout.toString()).data).toBe(3);
  });

  it('a checkpoint on a pipe is read whole, then as from a file', () => {
    const r = spawnSync(
      'sh',
      ['-c', 'cat "$0" | "$1" "$2" show /dev/stdin:column --json', join(ABS, 'views.pt')].concat([
        process.execPath,
        BIN,
      ]),
      { env: { PATH: process.env.PATH ?? '' } },
    );
    expect(r.stderr.toString()).toBe('');
    const want = goldenTensor('views.pt', 'column');
    expect(JSON.parse(r.stdout.toString()).data).toEqual(
      Array.from(new Float32Array(want.data.slice().buffer)),
    );
  });

  it('inspect - reads a checkpoint on a pipe as torch', () => {
    const r = spawnSync(
      'sh',
      ['-c', 'cat "$0" | "$1" "$2" inspect - --json', join(ABS, 'views.pt'), process.execPath, BIN],
      { env: { PATH: process.env.PATH ?? '' } },
    );
    expect(r.stderr.toString()).toBe('');
    const report = JSON.parse(r.stdout.toString());
    expect(report.format).toBe('torch');
    expect(report.tensors.map((t: { name: string }) => t.name)).toContain('transposed');
  });

  it('a sharded pytorch_model.bin.index.json is one container', async () => {
    const index = join(DIR, 'sharded', 'pytorch_model.bin.index.json');
    const r = tensorops(['inspect', index]);
    expect(r.stderr).toBe('');
    expect(r.stdout.toString().split('\n')[0]).toMatch(/: torch, 2 shards, 4 tensors, /);
    const out = join(tempDir(), 'model.safetensors');
    expect(tensorops(['convert', index, out]).status).toBe(0);
    await expectConverted(out, 'sharded/pytorch_model.bin.index.json');
  });

  for (const [file, want] of Object.entries(expected.unheld)) {
    it(`${file}: inspect (--verify too) lists every tensor; only reading one tensorops cannot hold fails`, () => {
      const path = join(DIR, file);
      const listed = tensorops(['inspect', path, '--json']);
      expect(listed.stderr).toBe('');
      const tensors = JSON.parse(listed.stdout.toString()).tensors as ExpectedTensor[];
      expect(tensors.map((t) => [t.name, t.dtype, t.shape])).toEqual(
        want.tensors.map((w) => [w.name, w.dtype, w.shape]),
      );
      const verified = tensorops(['inspect', '--verify', path]);
      expect([verified.status, verified.stderr.toString()]).toEqual([
        0,
        expect.stringMatching(/^tensorops: verified [^\n]*\n$/),
      ]);
      const dir = tempDir();
      const idx = join(dir, 'idx.npy');
      writeFileSync(idx, encodeNpy(tensorFrom('int64', [1], [0])));
      for (const w of want.tensors) {
        const ref = `${path}:${w.name}`;
        const out = join(dir, `${w.name}.npy`);
        if ('b64' in w) {
          expect(tensorops(['convert', ref, out]).stderr).toBe('');
          expect(readFileSync(out).equals(Buffer.from(encodeNpy(expectedTensor(w))))).toBe(true);
          continue;
        }
        const line = `tensorops: error: ${path}: tensor '${w.name}' has dtype torch.${w.dtype} (${w.dtype}), which tensorops cannot hold: it can be inspected, not loaded, converted or gathered\n`;
        for (const args of [
          ['show', ref],
          ['show', `${ref}[0]`],
          ['convert', ref, out],
          ['gather', ref, idx, '-o', out],
        ]) {
          const r = tensorops(args);
          expect([r.status, r.stderr.toString()], args.join(' ')).toEqual([1, line]);
          expect(existsSync(out)).toBe(false);
        }
      }
      // The whole checkpoint does not convert, and leaves nothing behind.
      const all = join(dir, 'all.safetensors');
      const r = tensorops(['convert', path, all]);
      expect(r.status).toBe(1);
      expect(r.stderr.toString()).toMatch(
        /^tensorops: error: [^\n]*which tensorops cannot hold[^\n]*\n$/,
      );
      expect(existsSync(all)).toBe(false);
    });
  }

  it('refuses the legacy format and TorchScript with one line each', () => {
    for (const [file, says] of [
      ['legacy.pt', 'legacy torch.save'],
      ['torchscript.pt', 'TorchScript'],
    ] as const) {
      const r = tensorops(['inspect', join(DIR, file)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^tensorops: error: [^\\n]*${says}[^\\n]*\\n$`));
    }
  });
});

describe('hostile torch archives', () => {
  for (const [name, { error, creates }] of Object.entries(expected.hostile)) {
    it(`${name}: one line, exit 1, nothing run, nothing written`, () => {
      const cwd = tempDir();
      const out = join(cwd, 'out.safetensors');
      for (const args of [
        ['inspect', join(ABS, 'hostile', `${name}.pt`)],
        ['convert', join(ABS, 'hostile', `${name}.pt`), out],
      ]) {
        const r = tensorops(args, { cwd, timeoutMs: 20_000 });
        expect(r.signal, args.join(' ')).toBeNull();
        if (args[0] === 'inspect' && r.status === 0) continue; // only reading a tensor finds it
        expect(r.status, args.join(' ')).toBe(1);
        expect(r.stderr).toMatch(/^tensorops: error: [^\n]*\n$/);
        expect(r.stderr.toLowerCase()).toContain(error);
      }
      if (creates !== undefined) expect(existsSync(join(cwd, creates))).toBe(false);
      expect(listDir(cwd)).toEqual([]);
    });
  }

  // A hostile pickle makes an object for each byte or two. In these heaps, pickles of 2 to 8 MB
  // ended node with a fatal out-of-memory error when an object cost hundreds of bytes.
  const inspectInHeap = (path: string, pickle: Uint8Array, heapMb: number) => {
    writeCheckpoint(path, pickle, []);
    const r = tensorops(['inspect', path], {
      nodeArgs: [`--max-old-space-size=${heapMb}`],
      timeoutMs: 20_000,
    });
    return { r, path };
  };
  it('lists and tuples nested a million deep are read in a 128 MB heap', () => {
    const dir = tempDir();
    for (const [name, pickle] of [
      ['lists.pt', nestedListsPickle(1_000_000)],
      ['tuples.pt', nestedTuplesPickle(1_000_000)],
    ] as const) {
      const { r } = inspectInHeap(join(dir, name), pickle, 128);
      expect(r.stderr, name).toBe('');
      expect(r.status, name).toBe(0);
      expect(r.stdout.toString(), name).toMatch(
        /: torch, 0 tensors, [^\n]*\n {2}and 1 entry that is not a tensor\n$/,
      );
    }
  });

  it('dicts nested a million deep, and a memo of five million, are one line in a 192 MB heap', () => {
    const dir = tempDir();
    for (const [name, pickle, error] of [
      [
        'deep.pt',
        deepPickle(1_000_000),
        "data.pkl: dicts nest deeper than 64 levels under 'a.a.a.",
      ],
      [
        'memo.pt',
        memoPickle(5_000_000),
        'data.pkl: MEMOIZE at offset 4194306: makes more than 4194304 objects',
      ],
    ] as const) {
      const { r, path } = inspectInHeap(join(dir, name), pickle, 192);
      expect(r.status, name).toBe(1);
      expect(r.stderr, name).toMatch(/^tensorops: error: [^\n]*\n$/);
      expect(r.stderr, name).toContain(`${path}: ${error}`);
    }
  });
});

describe('torch checkpoints over HTTP', () => {
  const serve = serveFolderPerTest();

  it('inspect, gather and convert read by ranges', async () => {
    const server = await serve(ABS);
    const listed = await tensoropsAsync(['inspect', `${server.url}/views.pt`, '--json']);
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout.toString()).tensors).toHaveLength(8);
    // A .bin URL is a torch checkpoint by its first bytes.
    const shard = await tensoropsAsync([
      'inspect',
      `${server.url}/sharded/pytorch_model-00002-of-00002.bin`,
      '--json',
    ]);
    expect(JSON.parse(shard.stdout.toString()).format).toBe('torch');
    const dir = tempDir();
    const idx = join(dir, 'idx.npy');
    const indices = tensorFrom('int32', [2], [1, 0]);
    writeFileSync(idx, encodeNpy(indices));
    const rows = join(dir, 'rows.npy');
    const r = await tensoropsAsync([
      'gather',
      `${server.url}/model.pt:embed.weight`,
      idx,
      '-o',
      rows,
    ]);
    expect(r.stderr).toBe('');
    const want = gather(goldenTensor('model.pt', 'embed.weight'), indices, { axis: 0 });
    expect(readFileSync(rows).equals(Buffer.from(encodeNpy(want)))).toBe(true);
    const out = join(dir, 'model.safetensors');
    const c = await tensoropsAsync([
      'convert',
      `${server.url}/sharded/pytorch_model.bin.index.json`,
      out,
    ]);
    expect(c.stderr).toBe('');
    await expectConverted(out, 'sharded/pytorch_model.bin.index.json');
  });

  it('a quantized tensor is listed, and refused with one line when read, by URL too', async () => {
    const server = await serve(ABS);
    const url = `${server.url}/quantized.pt`;
    const listed = await tensoropsAsync(['inspect', url, '--json']);
    expect(listed.stderr).toBe('');
    const dtypes = (JSON.parse(listed.stdout.toString()).tensors as ExpectedTensor[]).map(
      (t) => t.dtype,
    );
    expect(dtypes).toEqual(expected.unheld['quantized.pt']?.tensors.map((t) => t.dtype));
    const shown = await tensoropsAsync(['show', `${url}:ok`, '--json']);
    expect(shown.stderr).toBe('');
    const refused = await tensoropsAsync(['show', `${url}:q_uint8_channel`]);
    expect([refused.status, refused.stderr.toString()]).toEqual([
      1,
      `tensorops: error: ${url}: tensor 'q_uint8_channel' has dtype torch.quint8 (quint8), which tensorops cannot hold: it can be inspected, not loaded, converted or gathered\n`,
    ]);
  });
});
