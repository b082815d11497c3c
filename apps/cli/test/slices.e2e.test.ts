// Reading part of a tensor with numpy's basic slicing, through the built CLI: REF[SLICE] and
// --slice on show, convert and the gathers, checked against numpy and safetensors' get_slice
// (fixtures/slices, made by scripts/fixtures/slices.py), on local files, a sharded checkpoint and
// a real HTTP server that counts what was sent.

import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tensor } from '@tensorops/core';
import { decodeNpy, decodeSafetensors, encodeNpy, encodeSafetensors } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { copyShardedCheckpoint } from '../../../packages/io/test/format-fixtures.js';
import { bytesSent, serveFolderPerTest } from '../../../packages/io/test/http-servers.js';
import {
  bytesReadBy,
  listDir,
  REPO,
  repoArg,
  sparseNpy,
  tempDir,
  tensorops,
  tensoropsAsync,
} from './helpers.js';

const SLICES = repoArg('fixtures', 'slices');

interface Case {
  name: string;
  file: string;
  tensor: string | null;
  slice: string;
  expected?: { dtype: string; shape: number[]; b64: string };
  error?: 'index' | 'too-many' | 'usage';
}

const cases: Case[] = JSON.parse(readFileSync(join(REPO, SLICES, 'cases.json'), 'utf8'));

/** The one tensor of a .safetensors file the CLI wrote. */
function readBack(path: string): Tensor {
  const [entry] = decodeSafetensors(new Uint8Array(readFileSync(path))).tensors;
  return (entry as { tensor: Tensor }).tensor;
}

function refOf(c: Case): string {
  const file = join(SLICES, c.file);
  return c.tensor === null ? file : `${file}:${c.tensor}`;
}

describe('slices give what numpy and get_slice give', () => {
  it.each(cases)('$name', (c) => {
    const dir = tempDir();
    const viaRef = tensorops(['convert', `${refOf(c)}[${c.slice}]`, join(dir, 'ref.safetensors')]);
    const viaFlag = tensorops([
      'show',
      refOf(c),
      '--slice',
      c.slice,
      '-o',
      join(dir, 'flag.safetensors'),
    ]);
    for (const [r, out] of [
      [viaRef, 'ref.safetensors'],
      [viaFlag, 'flag.safetensors'],
    ] as const) {
      if (c.expected !== undefined) {
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        const t = readBack(join(dir, out));
        expect(t.dtype).toBe(c.expected.dtype);
        expect(t.shape).toEqual(c.expected.shape);
        expect(Buffer.from(t.data).toString('base64')).toBe(c.expected.b64);
      } else {
        expect(r.status).toBe(c.error === 'usage' ? 2 : 1);
        expect(r.stderr).toMatch(/^tensorops: error: [^\n]+\n$/);
        expect(r.stderr).toContain(
          { index: 'is out of bounds for axis', 'too-many': 'too many indices', usage: 'step' }[
            c.error as string
          ],
        );
      }
    }
    if (c.error !== undefined) expect(listDir(dir)).toEqual([]);
  });

  it('a name that ends in a bracket group names its tensor whole; [...] after it slices nothing', () => {
    const ref = `${join(SLICES, 'm.safetensors')}:h.0.attn[0]`;
    const whole = tensorops(['show', ref, '--json']);
    const all = tensorops(['show', `${ref}[...]`, '--json']);
    const flag = tensorops(['show', ref, '--slice', '1', '--json']);
    expect(whole.stderr).toBe('');
    expect(JSON.parse(whole.stdout.toString()).shape).toEqual([3, 4]);
    expect(all.stdout.equals(whole.stdout)).toBe(true);
    expect(JSON.parse(flag.stdout.toString())).toEqual({
      dtype: 'int8',
      shape: [4],
      data: [4, 5, 6, 7],
    });
  });

  it('in a sharded checkpoint too, a name that ends in a bracket group names its tensor', () => {
    const dir = tempDir();
    const attn: Tensor = { dtype: 'int8', shape: [2, 3], data: new Uint8Array([1, 2, 3, 4, 5, 6]) };
    const shard = 'model-00001-of-00001.safetensors';
    writeFileSync(join(dir, shard), encodeSafetensors([{ name: 'h.0.attn[0]', tensor: attn }]));
    const index = join(dir, 'model.safetensors.index.json');
    writeFileSync(index, JSON.stringify({ metadata: {}, weight_map: { 'h.0.attn[0]': shard } }));
    const json = (ref: string) => {
      const r = tensorops(['show', ref, '--json']);
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout.toString());
    };
    expect(json(`${index}:h.0.attn[0]`).data).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(json(`${index}:h.0.attn[0][1, ::-1]`).data).toEqual([6, 5, 4]);
  });

  it('--head N is [:N] of the slice', () => {
    const r = tensorops([
      'show',
      `${join(SLICES, 'c.npy')}[::-1, 2, ::3]`,
      '--head',
      '2',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.toString())).toEqual({
      dtype: 'int32',
      shape: [2, 3],
      // c = arange(210).reshape(5, 6, 7) * 7 - 100: c[4, 2, ::3] and c[3, 2, ::3].
      data: [
        [4 * 42 + 14, 4 * 42 + 17, 4 * 42 + 20].map((i) => i * 7 - 100),
        [3 * 42 + 14, 3 * 42 + 17, 3 * 42 + 20].map((i) => i * 7 - 100),
      ],
    });
  });

  it('a slice from stdin, a slice of a container with several tensors refused', () => {
    const piped = tensorops(['show', '-', '--slice', '-1, -1, -1', '--json'], {
      input: new Uint8Array(readFileSync(join(REPO, SLICES, 'c.npy'))),
    });
    expect(JSON.parse(piped.stdout.toString())).toEqual({
      dtype: 'int32',
      shape: [],
      data: 209 * 7 - 100,
    });
    // -[SLICE] is stdin sliced, as --slice is.
    const c = new Uint8Array(readFileSync(join(REPO, SLICES, 'c.npy')));
    const bracketed = tensorops(['show', '-[-1, -1, -1]', '--json'], { input: c });
    expect(bracketed.stdout.equals(piped.stdout)).toBe(true);
    const dir = tempDir();
    const converted = tensorops(['convert', '-[4, 5, 5:]', join(dir, 'c.npy')], { input: c });
    expect(converted.stderr).toBe('');
    expect(decodeNpy(new Uint8Array(readFileSync(join(dir, 'c.npy')))).shape).toEqual([2]);
    const many = tensorops([
      'convert',
      join(SLICES, 'm.safetensors'),
      join(dir, 'out.safetensors'),
      '--slice',
      ':1',
    ]);
    expect(many.status).toBe(2);
    expect(many.stderr).toContain('a slice reads one tensor');
    expect(listDir(dir)).toEqual(['c.npy']);
  });
});

describe('slices as the data of the gathers', () => {
  /** The CLI's output of `args` as a tensor (.npy on stdout). */
  function npyOut(args: string[]): Tensor {
    const r = tensorops([...args, '-o', '-']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return decodeNpy(new Uint8Array(r.stdout));
  }

  it('gather, gather-elements and gather-nd read REF[SLICE] and --slice as the sliced tensor', () => {
    const dir = tempDir();
    const c = join(SLICES, 'c.npy');
    const part = join(dir, 'part.npy');
    expect(tensorops(['convert', `${c}[1:4, ::-2, 3]`, part]).status).toBe(0);
    const ops: [string[], string[]][] = [
      [['gather', '--indices', '2,0,2', '--axis', '1'], []],
      [['gather-elements', '--indices', '[[1,0,1],[2,2,0]]', '--axis', '0'], []],
      [['gather-nd', '--indices', '[[2,1],[0,0]]'], []],
    ];
    for (const [op] of ops) {
      const expected = npyOut([...op, part]);
      expect(npyOut([...op, `${c}[1:4, ::-2, 3]`])).toEqual(expected);
      expect(npyOut([...op, c, '--slice', '1:4, ::-2, 3'])).toEqual(expected);
    }
  });

  it('gather-tree reads sliced beam inputs', () => {
    const dir = tempDir();
    const fx = (name: string) =>
      decodeNpy(new Uint8Array(readFileSync(join(REPO, 'fixtures', 'cli', `${name}.npy`))));
    // Each input with a batch entry of noise in front of the real one: [:, 1:] drops it.
    const widen = (t: Tensor, noise: number): Tensor => {
      const [time, , beam] = t.shape as [number, number, number];
      const src = new Int32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength / 4);
      const out = new Int32Array(time * 2 * beam);
      for (let s = 0; s < time; s++) {
        out.fill(noise, s * 2 * beam, s * 2 * beam + beam);
        out.set(src.subarray(s * beam, (s + 1) * beam), s * 2 * beam + beam);
      }
      return { dtype: 'int32', shape: [time, 2, beam], data: new Uint8Array(out.buffer) };
    };
    writeFileSync(join(dir, 'steps.npy'), encodeNpy(widen(fx('gt_steps'), 7)));
    writeFileSync(join(dir, 'parents.npy'), encodeNpy(widen(fx('gt_parents'), 9)));
    const lengths = fx('gt_lengths');
    const twoLengths = new Int32Array([
      1,
      ...new Int32Array(lengths.data.buffer, lengths.data.byteOffset, 1),
    ]);
    writeFileSync(
      join(dir, 'lengths.npy'),
      encodeNpy({ dtype: 'int32', shape: [2], data: new Uint8Array(twoLengths.buffer) }),
    );
    const r = tensorops([
      'gather-tree',
      `${join(dir, 'steps.npy')}[:, 1:]`,
      `${join(dir, 'parents.npy')}[:, 1:]`,
      `${join(dir, 'lengths.npy')}[1:]`,
      '--end-token',
      '10',
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout.equals(readFileSync(join(REPO, 'fixtures', 'cli', 'gt_expected.npy')))).toBe(
      true,
    );
  });
});

describe('a slice reads only the bytes it needs', () => {
  it('from disk: two rows of a 64 MiB .npy (the kernel counts what was read)', () => {
    const dir = tempDir();
    const path = sparseNpy(dir);
    const bytesRead = (ref: string, args: string[]): number =>
      bytesReadBy(dir, ['show', ref, ...args]);
    const sliced = bytesRead(`${path}[9000:9002, ::-512]`, ['--json']);
    const whole = bytesRead(path, ['--format', 'npy']);
    expect(whole).toBeGreaterThan(64 * 2 ** 20);
    expect(sliced).toBeLessThan(whole - 60 * 2 ** 20);
  });

  describe('over HTTP', () => {
    const serve = serveFolderPerTest();

    it('ten rows of every other column: one request after the header, their span only', async () => {
      const dir = tempDir();
      const rows = 4096;
      const cols = 64;
      const values = new Float32Array(rows * cols).map((_, i) => i);
      writeFileSync(
        join(dir, 'table.npy'),
        encodeNpy({ dtype: 'float32', shape: [rows, cols], data: new Uint8Array(values.buffer) }),
      );
      const server = await serve(dir);
      const r = await tensoropsAsync(['show', `${server.url}/table.npy[3000:3010, ::2]`, '--json']);
      expect(r.stderr).toBe('');
      const got = JSON.parse(r.stdout.toString());
      expect(got.shape).toEqual([10, 32]);
      expect(got.data[9][31]).toBe(3009 * cols + 62);
      // The header's first read, then one request for the ten rows' span.
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]?.bytes).toBe(10 * cols * 4 - 4);
      expect(bytesSent(server)).toBeLessThan(65536 + 10 * cols * 4);
    });

    it('a sharded checkpoint: only the shard that holds the tensor is read from', async () => {
      const dir = tempDir();
      copyShardedCheckpoint(dir);
      const server = await serve(dir);
      const index = `${server.url}/model.safetensors.index.json`;
      const whole = await tensoropsAsync(['show', `${index}:lm_head.weight`, '--json']);
      server.requests.length = 0;
      const part = await tensoropsAsync(['show', `${index}:lm_head.weight[-3:, 1::3]`, '--json']);
      const paths = new Set(server.requests.map((q) => q.path));
      expect([...paths].sort()).toEqual([
        '/model-00003-of-00003.safetensors',
        '/model.safetensors.index.json',
      ]);
      expect(part.stderr).toBe('');
      const all = JSON.parse(whole.stdout.toString()).data as number[][];
      const expected = all
        .slice(-3)
        .map((row) => row.filter((_, j) => j >= 1 && (j - 1) % 3 === 0));
      expect(JSON.parse(part.stdout.toString()).data).toEqual(expected);
    });
  });

  it('a sharded checkpoint on disk, and a copy named with brackets read whole', () => {
    const dir = tempDir();
    copyShardedCheckpoint(dir);
    const index = join(dir, 'model.safetensors.index.json');
    const whole = JSON.parse(
      tensorops(['show', `${index}:lm_head.weight`, '--json']).stdout.toString(),
    );
    const part = tensorops(['show', `${index}:lm_head.weight[::-2, 0]`, '--json']);
    expect(part.stderr).toBe('');
    const column = (whole.data as number[][]).map((row) => row[0]);
    expect(JSON.parse(part.stdout.toString()).data).toEqual(
      column.reverse().filter((_, i) => i % 2 === 0),
    );
    // A file whose own name ends in a bracket group is that file.
    const odd = join(dir, 'c.npy[1]');
    copyFileSync(join(REPO, SLICES, 'c.npy'), odd);
    expect(JSON.parse(tensorops(['show', odd, '--json']).stdout.toString()).shape).toEqual([
      5, 6, 7,
    ]);
  });
});
