import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { encodeNpy } from '@tensorops/io';
import { writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { bytesReadBy, listDir, REPO, sparseNpy, tempDir, tensorops } from './helpers.js';

const TEXT = join(REPO, 'fixtures/text');
const rows = tensorFrom('float32', [3, 2], [0.5, -1, 2, 3, Number.NaN, 1e-5]);

async function containers(dir: string): Promise<{ npz: string; safetensors: string }> {
  const npz = join(dir, 'a.npz');
  const safetensors = join(dir, 'a.safetensors');
  const other = tensorFrom('int64', [1], [2n ** 60n]);
  const entries = [
    { name: 'rows', data: rows },
    { name: 'other', data: other },
  ];
  await writeTensorsFile(npz, entries, { compress: true });
  await writeTensorsFile(safetensors, entries);
  return { npz, safetensors };
}

describe('tensorops show', () => {
  it('prints one stored tensor into a pipe as tab-separated rows, whatever the container', async () => {
    const dir = tempDir();
    const { npz, safetensors } = await containers(dir);
    for (const ref of [`${npz}:rows`, `${safetensors}:rows`]) {
      const r = tensorops(['show', ref]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout.toString()).toBe('0.5\t-1.0\n2.0\t3.0\nnan\t1e-05\n');
    }
    for (const name of ['int64', 'rank3', 'complex128']) {
      const text = tensorops(['show', join(TEXT, `${name}.npy`)]);
      expect(text.stdout.toString()).toBe(readFileSync(join(TEXT, `${name}.tsv`), 'utf8'));
    }
    const stdin = tensorops(['show', '-'], { input: encodeNpy(rows) });
    expect(stdin.stdout.toString()).toBe('0.5\t-1.0\n2.0\t3.0\nnan\t1e-05\n');
  });

  it('pipes .npy bytes when --format npy or -o - asks for them', async () => {
    const { safetensors } = await containers(tempDir());
    for (const flags of [
      ['--format', 'npy'],
      ['-o', '-'],
    ]) {
      const r = tensorops(['show', `${safetensors}:rows`, ...flags]);
      expect(r.stderr).toBe('');
      expect(r.stdout.equals(Buffer.from(encodeNpy(rows)))).toBe(true);
    }
    const npy = tensorops(['show', join(TEXT, 'int64.npy'), '--format', 'npy']);
    expect(npy.stdout.equals(readFileSync(join(TEXT, 'int64.npy')))).toBe(true);
  });

  it('--format, --json and -o FILE.csv choose the format', async () => {
    const dir = tempDir();
    const { safetensors } = await containers(dir);
    const csv = tensorops(['show', `${safetensors}:rows`, '--format', 'csv']);
    expect(csv.stdout.toString()).toBe('0.5,-1.0\n2.0,3.0\nnan,1e-05\n');
    const json = tensorops(['show', `${safetensors}:other`, '--json']);
    expect(json.stdout.toString()).toBe(
      '{"dtype":"int64","shape":[1],"data":[1152921504606846976]}\n',
    );
    const out = join(dir, 'f32.tsv');
    expect(tensorops(['show', join(TEXT, 'float32.npy'), '-o', out]).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(TEXT, 'float32.tsv'), 'utf8'));
  });

  it('--head N keeps the first N entries along axis 0, from files and stdin', async () => {
    const dir = tempDir();
    const { npz, safetensors } = await containers(dir);
    for (const ref of [`${npz}:rows`, `${safetensors}:rows`]) {
      const r = tensorops(['show', ref, '--head', '2', '--format', 'csv']);
      expect(r.stdout.toString(), ref).toBe('0.5,-1.0\n2.0,3.0\n');
    }
    const piped = tensorops(['show', '-', '--head', '1', '--json'], { input: encodeNpy(rows) });
    expect(piped.stdout.toString()).toBe('{"dtype":"float32","shape":[1,2],"data":[[0.5,-1.0]]}\n');
    const more = tensorops(['show', join(TEXT, 'rank3.npy'), '--head', '9', '--format', 'csv']);
    expect(more.stdout.toString()).toBe(readFileSync(join(TEXT, 'rank3.csv'), 'utf8'));
    const none = tensorops(['show', join(TEXT, 'rank3.npy'), '--head', '0', '--json']);
    expect(none.stdout.toString()).toBe('{"dtype":"int32","shape":[0,3,4],"data":[]}\n');
  });

  it('--head reads only the bytes of those entries (the kernel counts what was read)', () => {
    const dir = tempDir();
    const path = sparseNpy(dir);
    const bytesRead = (args: string[]): number => bytesReadBy(dir, ['show', path, ...args]);
    const head = bytesRead(['--head', '2', '--format', 'csv']);
    const whole = bytesRead(['--format', 'npy']);
    expect(whole).toBeGreaterThan(64 * 2 ** 20);
    expect(head).toBeLessThan(whole - 60 * 2 ** 20);
  });

  it('usage errors: a negative --head, --head of a scalar, a container without :NAME', async () => {
    const dir = tempDir();
    const { npz } = await containers(dir);
    const negative = tensorops(['show', join(TEXT, 'int8.npy'), '--head=-1']);
    expect(negative.status).toBe(2);
    expect(negative.stderr).toBe(
      "tensorops: error: --head takes a count of entries (0 or more), got '-1'\n",
    );
    const scalar = tensorops(['show', join(TEXT, 'scalar.npy'), '--head', '1']);
    expect(scalar.status).toBe(2);
    expect(scalar.stderr).toContain('--head needs a tensor of at least one dimension');
    const unnamed = tensorops(['show', npz]);
    expect(unnamed.status).toBe(1);
    expect(unnamed.stderr).toContain("holds 2 tensors ('rows', 'other')");
    expect(listDir(dir)).toEqual(['a.npz', 'a.safetensors']);
  });
});

describe('a tensor name that is not in the file', () => {
  async function checkpoint(names: readonly string[]): Promise<string> {
    const file = join(tempDir(), 'model.safetensors');
    const one = tensorFrom('float32', [1], [1]);
    await writeTensorsFile(
      file,
      names.map((name) => ({ name, data: one })),
    );
    return file;
  }
  const layers = Array.from({ length: 32 }, (_, i) => `model.layers.${i}.mlp.down_proj.weight`);

  it('suggests the closest names, and those that end with it', async () => {
    const file = await checkpoint(['model.embed_tokens.weight', ...layers, 'lm_head.weight']);
    const typo = tensorops(['show', `${file}:model.embed_token.weight`]);
    expect(typo.status).toBe(1);
    expect(typo.stderr).toBe(
      `tensorops: error: ${file}: no tensor 'model.embed_token.weight'; did you mean 'model.embed_tokens.weight'?\n`,
    );
    const swapped = tensorops(['show', `${file}:model.layers.7.mlp.down_proj.wieght`]);
    expect(swapped.stderr).toContain(
      "no tensor 'model.layers.7.mlp.down_proj.wieght'; did you mean 'model.layers.7.mlp.down_proj.weight', 'model.layers.0.mlp.down_proj.weight' or ",
    );
    const suffix = tensorops(['show', `${file}:down_proj.weight`]);
    expect(suffix.stderr).toContain(
      "; did you mean 'model.layers.0.mlp.down_proj.weight', 'model.layers.1.mlp.down_proj.weight' or ",
    );
    const inspect = tensorops(['inspect', `${file}:lm_head.weights`]);
    expect(inspect.stderr).toContain("did you mean 'lm_head.weight'?");
  });

  it('lists names whole, never cut, when none is close', async () => {
    const long = `${'encoder.block.'.repeat(4)}weight`;
    const file = await checkpoint([long, ...layers]);
    const r = tensorops(['show', `${file}:nope`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `: no tensor 'nope' (it holds '${long}', 'model.layers.0.mlp.down_proj.weight' and 31 more: tensorops inspect `,
    );
    const longer = `${'encoder.block.'.repeat(9)}weight`;
    const cut = tensorops(['show', `${await checkpoint([longer, ...layers])}:nope`]);
    expect(cut.stderr).toContain(
      "(it holds 'model.layers.0.mlp.down_proj.weight', 'model.layers.1.mlp.down_proj.weight' and 31 more: ",
    );
    // A path too long for the line is cut; the names quoted stay whole.
    const deep = join(tempDir(), 'a-folder-of-a-long-name'.repeat(8));
    mkdirSync(deep);
    const far = join(deep, 'model.safetensors');
    renameSync(file, far);
    for (const typed of ['nope', 'model.layers.7.mlp.down_proj.wieght', 'x'.repeat(300)]) {
      const line = tensorops(['show', `${far}:${typed}`]).stderr;
      expect(line.length).toBeLessThanOrEqual(260);
      expect(line).toContain('…');
      for (const quoted of line.match(/'[^']*'/g)?.slice(1) ?? []) {
        expect([long, ...layers]).toContain(quoted.slice(1, -1));
      }
    }
  });
});
