import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeNpy } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { listDir, REPO, tempDir, tensorops } from './helpers.js';

// Text data in: the golden cases of scripts/fixtures/data_text.py (numpy.loadtxt, np.array of
// json.loads, decimals rounded once with exact fractions) through the built CLI.
interface GoldenCase {
  readonly name: string;
  readonly text: string;
  readonly options: { dtype: string; delimiter?: string; skipRows?: number; json?: boolean };
  readonly expected?: { dtype: string; shape: number[]; b64: string };
  readonly error?: string;
}

const CASES = new Map(
  (
    JSON.parse(readFileSync(join(REPO, 'fixtures/data-text/cases.json'), 'utf8')) as GoldenCase[]
  ).map((c) => [c.name, c]),
);

function golden(name: string): GoldenCase {
  const c = CASES.get(name);
  if (c === undefined) throw new Error(name);
  return c;
}

/** The flags of a case but its delimiter, which the extension gives. */
function flagsOf(c: GoldenCase): string[] {
  const flags = ['--dtype', c.options.dtype];
  if (c.options.skipRows !== undefined) flags.push('--skip-rows', String(c.options.skipRows));
  return flags;
}

function expectNpy(bytes: Uint8Array, c: GoldenCase): void {
  const t = decodeNpy(bytes);
  const want = c.expected as NonNullable<GoldenCase['expected']>;
  expect({ dtype: t.dtype, shape: t.shape }).toEqual({ dtype: want.dtype, shape: want.shape });
  expect(Buffer.from(t.data).toString('base64')).toBe(want.b64);
}

describe('tensorops convert: text data in', () => {
  const names = [
    'csv-rows',
    'tsv-rows',
    'skiprows',
    'comments-and-blank-lines',
    'int64-edges',
    'uint64-max',
    'round-once-float32',
    'round-once-float16',
  ];
  it('reads a file by its extension, as numpy.loadtxt does, to .npy', () => {
    const dir = tempDir();
    for (const name of names) {
      const c = golden(name);
      const ext =
        c.options.delimiter === ',' ? 'csv' : c.options.delimiter === '\t' ? 'tsv' : 'txt';
      const input = join(dir, `${name}.${ext}`);
      writeFileSync(input, c.text);
      const out = join(dir, `${name}.npy`);
      const r = tensorops(['convert', input, out, ...flagsOf(c)]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expectNpy(readFileSync(out), c);
    }
    // --delimiter over the extension's.
    const c = golden('csv-rows');
    writeFileSync(join(dir, 'semi.txt'), c.text.replaceAll(',', ';'));
    const r = tensorops(['convert', join(dir, 'semi.txt'), '-', '--delimiter', ';']);
    expect(r.stderr).toBe('');
    expectNpy(r.stdout, c);
    // \t as typed (two characters) stands for a tab.
    const tsv = golden('tsv-rows');
    writeFileSync(join(dir, 'tabs.txt'), tsv.text);
    const tabs = tensorops(['convert', join(dir, 'tabs.txt'), '-', '--delimiter', '\\t']);
    expect(tabs.stderr).toBe('');
    expectNpy(tabs.stdout, tsv);
  });

  it('reads a sharded checkpoint index as the checkpoint, not as JSON data', () => {
    const dir = tempDir();
    const index = join(REPO, 'fixtures/checkpoints/sharded/model.safetensors.index.json');
    const r = tensorops(['convert', index, join(dir, 'all.safetensors')]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const listed = tensorops(['inspect', join(dir, 'all.safetensors'), '--json']);
    expect(JSON.parse(listed.stdout.toString()).tensors.length).toBe(7);
  });

  it('takes --slice and --head on text data as on a stored tensor', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'rows.csv'), '1,2,3\n4,5,6\n7,8,9\n');
    const sliced = tensorops(['convert', join(dir, 'rows.csv'), '-', '--slice', '::-2, 1']);
    expect(sliced.stderr).toBe('');
    const t = decodeNpy(sliced.stdout);
    expect({ dtype: t.dtype, shape: t.shape }).toEqual({ dtype: 'float64', shape: [2] });
    expect([...new Float64Array(t.data.slice().buffer)]).toEqual([8, 2]);
    const shown = tensorops(['show', join(dir, 'rows.csv'), '--slice', ':, 2', '--head', '2']);
    expect(shown.stderr).toBe('');
    expect(shown.stdout.toString()).toBe('3.0\n6.0\n');
    const wrong = tensorops(['show', join(dir, 'rows.csv'), '--slice', '5']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^tensorops: error: .*rows\.csv: .*index 5 is out of bounds.*\n$/);
  });

  it('reads JSON by its extension and text on stdin with --from', () => {
    const dir = tempDir();
    for (const name of ['json-2d', 'json-3d', 'json-specials', 'json-uint64']) {
      const c = golden(name);
      const input = join(dir, `${name}.json`);
      writeFileSync(input, c.text);
      const r = tensorops(['convert', input, '-', '--dtype', c.options.dtype]);
      expect(r.stderr).toBe('');
      expectNpy(r.stdout, c);
      const piped = tensorops(['convert', '-', '-', '--from', 'json', '--dtype', c.options.dtype], {
        input: Buffer.from(c.text),
      });
      expect(piped.stdout.equals(r.stdout)).toBe(true);
    }
    const c = golden('csv-blanks-around');
    const csv = tensorops(['convert', '-', '-', '--from', 'csv'], { input: Buffer.from(c.text) });
    expect(csv.stderr).toBe('');
    expectNpy(csv.stdout, c);
  });

  it('writes any output format from text, e.g. .safetensors', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.txt'), '1 2\n3 4\n');
    const r = tensorops([
      'convert',
      join(dir, 'x.txt'),
      join(dir, 'x.safetensors:x'),
      '--dtype',
      'int32',
    ]);
    expect(r.stderr).toBe('');
    const shown = tensorops(['show', join(dir, 'x.safetensors:x'), '--json']);
    expect(JSON.parse(shown.stdout.toString())).toEqual({
      dtype: 'int32',
      shape: [2, 2],
      data: [
        [1, 2],
        [3, 4],
      ],
    });
  });

  it('a bad value: one line naming file, line and column, exit 1, nothing written', () => {
    const dir = tempDir();
    for (const [name, ext] of [
      ['ragged-fewer', 'csv'],
      ['int64-over', 'txt'],
      ['uint8-over', 'txt'],
      ['nul', 'txt'],
      ['json-ragged', 'json'],
    ] as const) {
      const c = golden(name);
      const input = join(dir, `${name}.${ext}`);
      writeFileSync(input, c.text);
      const r = tensorops(['convert', `${name}.${ext}`, 'out.npy', '--dtype', c.options.dtype], {
        cwd: dir,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`^tensorops: error: ${name}\\.${ext}:${c.error}: [^\\n]+\\n$`),
      );
      expect(existsSync(join(dir, 'out.npy'))).toBe(false);
    }
    expect(listDir(dir).filter((f) => !f.includes('.') || f.startsWith('out'))).toEqual([]);
  });

  it('usage errors: exit 2', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), '[1]');
    writeFileSync(join(dir, 'a.csv'), '1,2');
    const npy = join(REPO, 'fixtures/text/int8.npy');
    const cases: [string[], string][] = [
      [['convert', npy, 'x.npy', '--dtype', 'int8'], '--dtype reads text data'],
      [['convert', 'a.json', 'x.npy', '--delimiter', ','], 'JSON has none'],
      [['convert', 'a.csv', 'x.npy', '--delimiter', '.'], 'a delimiter is one ASCII character'],
      [['convert', 'a.csv', 'x.npy', '--dtype', 'complex64'], '--dtype'],
      [['convert', 'a.csv', 'x.npy', '--skip-rows', '-1'], '--skip-rows'],
      [['convert', '-', 'x.npy', '--from', 'xml'], '--from'],
      [['convert', 'http://127.0.0.1:9/x.csv', 'x.npy'], 'text data is read from a file or stdin'],
    ];
    for (const [args, words] of cases) {
      const r = tensorops(args, { cwd: dir });
      expect(r.stderr).toContain(words);
      expect(r.status).toBe(2);
    }
    // A URL is named without its credentials or query string.
    const url = 'https://user:s3cret@127.0.0.1:9/x.npy?token=t0ken';
    const secret = tensorops(['convert', url, 'x.npy', '--dtype', 'int8'], { cwd: dir });
    expect(secret.status).toBe(2);
    expect(secret.stderr).toContain('--dtype reads text data');
    expect(secret.stderr).not.toMatch(/s3cret|t0ken/);
    // --skip-rows 0 as typed is no row skipped, which JSON allows.
    const zero = tensorops(['convert', 'a.json', '-', '--skip-rows', '0'], { cwd: dir });
    expect(zero.stderr).toBe('');
    expect(zero.status).toBe(0);
  });
});

describe('tensorops show: text data in', () => {
  it('prints the values read, as tsv rows in a pipe', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'r.csv'), '# x, y\n1.5,2\n-3,4e2\n');
    const r = tensorops(['show', join(dir, 'r.csv'), '--dtype', 'float32']);
    expect(r.stderr).toBe('');
    expect(r.stdout.toString()).toBe('1.5\t2.0\n-3.0\t400.0\n');
    const head = tensorops(['show', '-', '--from', 'txt', '--head', '1'], {
      input: Buffer.from('1 2\n3 4\n'),
    });
    expect(head.stdout.toString()).toBe('1.0\t2.0\n');
  });
});
