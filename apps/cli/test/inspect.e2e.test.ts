import { spawnSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { encodeSafetensors } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { BIN, listDir, REPO, repoArg, tempDir, tensorops } from './helpers.js';

// Fixtures as the CLI is given them, relative to the repository: messages quote them back.
const st = (name: string): string => repoArg('fixtures', 'safetensors', name);
const npz = (name: string): string => repoArg('fixtures', 'npz', name);
const npy = (name: string): string => repoArg('fixtures', 'npy', name);

function ok(args: string[]): string {
  const r = tensorops(args);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.toString();
}

describe('tensorops inspect', () => {
  it('prints a table of every tensor: name, dtype, shape, bytes, offset, storage', () => {
    const path = st('single.safetensors');
    expect(ok(['inspect', path])).toBe(
      `${path}: safetensors, 1 tensor, 104 B\n` +
        '  name          dtype     shape   bytes  offset  stored as\n' +
        '  embed.weight  bfloat16  [4, 3]     24      80  BF16\n',
    );
  });

  it('shows .npz storage (stored offsets, deflate sizes, Fortran and byte order)', () => {
    const text = ok(['inspect', npz('savez-compressed.npz')]);
    expect(text).toContain(
      '  floats_f        float32  [2, 3, 2]     48       -  <f4, fortran order, deflate 123 B\n',
    );
    expect(text).toContain(
      '  big_endian      int32    [5]           20       -  >i4, big-endian, deflate 89 B\n',
    );
    expect(ok(['inspect', npz('savez.npz')])).toContain(
      '  ints            int64    [3, 4]        96     186  <i8\n',
    );
  });

  it('--json has stable keys, the same for every format', () => {
    const doc = JSON.parse(ok(['inspect', st('all-dtypes.safetensors'), '--json']));
    expect(Object.keys(doc)).toEqual([
      'file',
      'format',
      'size',
      'shards',
      'tensors',
      'not_tensors',
      'metadata',
      'other_entries',
    ]);
    expect(doc.format).toBe('safetensors');
    expect(doc.metadata).toEqual({ format: 'pt', note: 'café ✓' });
    expect(doc.tensors).toHaveLength(20);
    expect(doc.tensors.find((t: { name: string }) => t.name === 't_f4')).toEqual({
      name: 't_f4',
      dtype: 'float4_e2m1fn',
      shape: [2, 4],
      nbytes: 4,
      offset: 1703,
      shard: null,
      format_dtype: 'F4',
      fortran_order: false,
      byte_order: 'little',
      compression: null,
      compressed_nbytes: null,
      storage: null,
    });
    const n = JSON.parse(ok(['inspect', npy('c16-be-f3.npy'), '--json']));
    expect(n).toEqual({
      file: npy('c16-be-f3.npy'),
      format: 'npy',
      size: 512,
      shards: null,
      tensors: [
        {
          name: null,
          dtype: 'complex128',
          shape: [2, 3, 4],
          nbytes: 384,
          offset: 128,
          shard: null,
          format_dtype: '>c16',
          fortran_order: true,
          byte_order: 'big',
          compression: null,
          compressed_nbytes: null,
          storage: null,
        },
      ],
      not_tensors: [],
      metadata: null,
      other_entries: 0,
    });
    const z = JSON.parse(ok(['inspect', npz('savez-compressed.npz'), '--json']));
    for (const t of z.tensors) expect(Object.keys(t)).toEqual(Object.keys(n.tensors[0]));
    expect(z.tensors[0]).toMatchObject({
      name: 'ints',
      offset: null,
      compression: 'deflate',
      compressed_nbytes: 172,
    });
  });

  it('lists 5,000 tensors as the table of their --json report, written in chunks', () => {
    const dir = tempDir();
    const path = join(dir, 'many.safetensors');
    const tensors = Array.from({ length: 5000 }, (_, i) => ({
      name: `blocks.${i}.${'w'.repeat(i % 13)}\n`,
      tensor: { dtype: 'float32' as const, shape: [i % 4, 3], data: new Uint8Array((i % 4) * 12) },
    }));
    writeFileSync(path, encodeSafetensors(tensors, { format: 'pt' }));
    const doc = JSON.parse(ok(['inspect', path, '--json']));
    const lines = ok(['inspect', path]).split('\n');
    expect(lines[0]).toBe(`${path}: safetensors, 5000 tensors, 486.0 KiB`);
    expect(doc.size).toBe(497_664);
    expect(lines.slice(-3)).toEqual(['metadata:', '  format: pt', '']);
    const rows = lines.slice(2, -3);
    expect(rows).toHaveLength(5000);
    // Every column starts where the header's does: the widths hold across the chunks.
    const dtypeAt = (lines[1] as string).indexOf('dtype');
    for (const [i, t] of doc.tensors.entries()) {
      const row = rows[i] as string;
      const name = t.name.replace('\n', '\\x0a');
      expect(row.slice(0, dtypeAt)).toBe(`  ${name}`.padEnd(dtypeAt));
      expect(row.slice(dtypeAt).replace(/ +/g, ' ')).toBe(
        `float32 [${t.shape.join(', ')}] ${t.nbytes} ${t.offset} F32`,
      );
    }
  });

  it('lists 10^5 tensors, a row each, in a 56 MiB heap', () => {
    // Kept descriptions, or shapes with spare room, needed 72 MiB here: enough surviving objects
    // for V8 to grow its young generation, a third of the run's peak memory on Node 24.
    const dir = tempDir();
    const path = join(dir, 'experts.safetensors');
    const tensors = Array.from({ length: 100_000 }, (_, i) => ({
      name: `model.layers.${i >> 6}.mlp.experts.${i & 63}.down_proj.weight`,
      tensor: {
        dtype: 'float16' as const,
        shape: [1 + (i % 4), 3],
        data: new Uint8Array(6 * (1 + (i % 4))),
      },
    }));
    const bytes = encodeSafetensors(tensors, { format: 'pt' });
    writeFileSync(path, bytes);
    const dataStart = 8 + Number(Buffer.from(bytes).readBigUInt64LE(0));
    const r = tensorops(['inspect', path], { nodeArgs: ['--max-old-space-size=56'] });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.toString().split('\n');
    expect(lines[0]?.startsWith(`${path}: safetensors, 100000 tensors, `)).toBe(true);
    expect(lines).toHaveLength(1 + 1 + 100_000 + 2 + 1);
    expect(lines[2]?.trim().split(/ +/)).toEqual([
      'model.layers.0.mlp.experts.0.down_proj.weight',
      'float16',
      '[1,',
      '3]',
      '6',
      String(dataStart),
      'F16',
    ]);
  });

  it('FILE:NAME shows one tensor', () => {
    const doc = JSON.parse(ok(['inspect', `${npz('savez.npz')}:layer/0/weight`, '--json']));
    expect(doc.tensors.map((t: { name: string }) => t.name)).toEqual(['layer/0/weight']);
  });

  it('reads headers only: a 16 GiB file is inspected at once', () => {
    const dir = tempDir();
    const path = join(dir, 'huge.safetensors');
    const header =
      '{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[4194304,1024],"data_offsets":[0,17179869184]}}';
    const padded = header.padEnd(Math.ceil(header.length / 8) * 8, ' ');
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(BigInt(padded.length));
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.concat([prefix, Buffer.from(padded)]));
    ftruncateSync(fd, 8 + padded.length + 17179869184); // sparse: no disk space, no data
    closeSync(fd);
    // A shell runs the CLI and then prints its own I/O count, which includes the reaped child's:
    // the bytes read are node's own files and the header, not the 16 GiB of data.
    const r = spawnSync(
      'sh',
      ['-c', '"$0" "$@" && cat /proc/$$/io', process.execPath, BIN, 'inspect', path, '--json'],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    const [json = '', io = ''] = r.stdout.split(/\n(?=rchar:)/);
    const rchar = Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
    expect(rchar).toBeGreaterThan(8 + padded.length);
    expect(rchar).toBeLessThan(256 << 20);
    const doc = JSON.parse(json);
    expect(doc.tensors[0]).toMatchObject({
      name: 'w',
      shape: [4194304, 1024],
      nbytes: 17179869184,
    });
  });

  it('errors: one line, exit 1 for bad files and unknown names, 2 for usage', () => {
    const bad = tensorops(['inspect', st('offset-hole.safetensors')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(
      `tensorops: error: ${st('offset-hole.safetensors')}: .safetensors header: tensor 'b' data starts at 3, expected 2: tensors must cover the data contiguously from 0, without holes or overlaps\n`,
    );
    const missing = tensorops(['inspect', `${npz('savez.npz')}:nope`]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(
      `${npz('savez.npz')}: no tensor 'nope' (it holds 'ints', 'floats_f' and 6 more: tensorops inspect ${npz('savez.npz')})`,
    );
    const named = tensorops(['inspect', `${npy('f4-le-c.npy')}:x`]);
    expect(named.stderr).toBe(
      `tensorops: error: ${npy('f4-le-c.npy')}: a .npy file holds one unnamed tensor; drop ':x'\n`,
    );
    const stdin = tensorops(['inspect', '-', '-']);
    expect(stdin.status).toBe(2);
    expect(stdin.stderr).toBe(
      'tensorops: error: standard input (-) can be used for one input only\n',
    );
    expect(tensorops(['inspect', st('single.safetensors'), '-o', 'x']).status).toBe(2);
  });
});

describe('tensorops inspect: .npz members that are not tensors', () => {
  it('lists them as "not a tensor" with the reason, reads the rest, refuses them only by name', () => {
    const path = npz('foreign-member.npz');
    const r = tensorops(['inspect', path]);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toContain(
      "  notes.txt  not a tensor: .npz member 'notes.txt' is not a NAME.npy member",
    );
    const doc = JSON.parse(tensorops(['inspect', path, '--json']).stdout.toString());
    expect(doc.tensors.map((t: { name: string }) => t.name)).toEqual(['x']);
    expect(doc.not_tensors).toEqual([
      {
        name: 'notes.txt',
        reason:
          ".npz member 'notes.txt' is not a NAME.npy member (np.load would not return it as an array)",
      },
    ]);
    const asked = tensorops(['inspect', `${path}:notes.txt`]);
    expect(asked.status).toBe(1);
    expect(asked.stderr).toBe(
      `tensorops: error: ${path}: .npz member 'notes.txt' is not a NAME.npy member (np.load would not return it as an array)\n`,
    );
  });

  it('a NAME.npy member holding more than its header declares is listed, and refused when used', () => {
    const path = npz('member-excess.npz');
    const doc = JSON.parse(tensorops(['inspect', path, '--json']).stdout.toString());
    expect(doc.tensors).toEqual([]);
    expect(doc.not_tensors[0].reason).toContain(
      "member 'x.npy' holds 1000 bytes after the 24 bytes",
    );
    const dir = tempDir();
    for (const args of [
      ['convert', path, join(dir, 'o.safetensors')],
      ['convert', `${path}:x`, join(dir, 'o.npy')],
      ['gather', path, join(REPO, 'examples', 'ids.npy'), '-o', join(dir, 'o.npy')],
    ]) {
      const r = tensorops(args);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr).toBe(
        `tensorops: error: ${path}: .npz member 'x.npy' holds 1000 bytes after the 24 bytes of data its .npy header declares; refused (corrupt, or a zip bomb)\n`,
      );
    }
    expect(listDir(dir)).toEqual([]);
  });

  it('reads members whose names are no valid path (x:0, a\\b, ../up, /abs), by name', () => {
    expect(tensorops(['--help']).stdout.toString().replace(/\s+/g, ' ')).toContain(
      "NAME is everything after the file's path, ':' and '/' included, so any name can be given: a.npz:x:0 is tensor x:0.",
    );
    const path = npz('odd-names.npz');
    const doc = JSON.parse(tensorops(['inspect', path, '--json']).stdout.toString());
    expect(doc.tensors.map((t: { name: string }) => t.name)).toEqual([
      'x:0',
      'a\\b',
      '../up',
      '/abs',
    ]);
    for (const name of ['x:0', 'a\\b', '../up', '/abs']) {
      const r = tensorops(['inspect', `${path}:${name}`, '--json']);
      expect(r.status, name).toBe(0);
      expect(JSON.parse(r.stdout.toString()).tensors[0].name).toBe(name);
    }
  });
});

describe('tensorops inspect -: a file on stdin', () => {
  /** The JSON report of `path` given as a path, and on stdin as a pipe and as a regular file. */
  function reports(path: string, flags: string[] = []) {
    const json = (stdout: Buffer) => JSON.parse(stdout.toString());
    const byPath = tensorops(['inspect', path, '--json', ...flags]);
    const piped = tensorops(['inspect', '-', '--json', ...flags], {
      input: readFileSync(join(REPO, path)),
    });
    const fd = openSync(join(REPO, path), 'r');
    try {
      const redirected = spawnSync(process.execPath, [BIN, 'inspect', '-', '--json', ...flags], {
        stdio: [fd, 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '' },
      });
      for (const r of [byPath, piped]) expect(r.status).toBe(0);
      expect(redirected.status).toBe(0);
      return {
        byPath: json(byPath.stdout),
        piped: json(piped.stdout),
        redirected: json(redirected.stdout),
      };
    } finally {
      closeSync(fd);
    }
  }

  it('reads every container from a pipe or a redirected file, as from its path', () => {
    for (const path of [npy('f4-le-c.npy'), st('single.safetensors'), npz('savez.npz')]) {
      const { byPath, piped, redirected } = reports(path, ['--verify']);
      expect(piped).toEqual({ ...byPath, file: 'stdin' });
      expect(redirected).toEqual({ ...byPath, file: 'stdin' });
    }
  });

  it('reads only the header from a pipe unless --verify: a file of any size costs its header', () => {
    // A .npy header declaring 8 GB of float64, and none of its data.
    const dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }";
    const header = Buffer.from(`\x93NUMPY\x01\x00\x76\x00${dict.padEnd(117)}\n`, 'latin1');
    expect(header.length).toBe(128);
    const r = tensorops(['inspect', '-', '--json'], { input: header });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout.toString());
    expect(report.size).toBe(128 + 8e9);
    expect(report.tensors[0]).toMatchObject({ dtype: 'float64', shape: [1e9], nbytes: 8e9 });
    const verify = tensorops(['inspect', '-', '--verify'], { input: header });
    expect(verify.status).toBe(1);
    expect(verify.stderr).toBe(
      'tensorops: error: stdin: input exceeds the 4294967296-byte limit\n',
    );
  });

  it('refuses what is no tensor file, or ends early, in one line naming stdin', () => {
    const text = tensorops(['inspect', '-'], { input: Buffer.from('1,2,3\n') });
    expect(text.status).toBe(1);
    expect(text.stderr).toMatch(
      /^tensorops: error: stdin: not a \.npy, \.npz, \.safetensors or \.gguf file[^\n]*\n$/,
    );
    const whole = readFileSync(join(REPO, npy('f4-le-c.npy')));
    const cut = tensorops(['inspect', '-', '--verify'], {
      input: whole.subarray(0, whole.length - 1),
    });
    expect(cut.status).toBe(1);
    expect(cut.stderr).toMatch(/^tensorops: error: stdin: [^\n]*truncated[^\n]*\n$/);
  });
});
