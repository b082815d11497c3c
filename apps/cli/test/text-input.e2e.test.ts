import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { decodeNpy, encodeNpy } from '@tensorops/io';
import { writeTensorsFile } from '@tensorops/io/node';
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

/** The text of golden case `name` written to `dir` as `name.ext`; its path. */
function writeCase(dir: string, name: string, ext: string): string {
  const path = join(dir, `${name}.${ext}`);
  writeFileSync(path, golden(name).text);
  return path;
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
      writeCase(dir, name, ext);
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

describe('tensorops gather, gather-elements, gather-nd: text data as DATA', () => {
  /** The run's stdout; the run must succeed with nothing on stderr. */
  function ok(args: string[], input?: string): Buffer {
    const r = tensorops(args, input === undefined ? {} : { input: Buffer.from(input) });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout;
  }

  // Each gather of text DATA gives the bytes it gives of the same values as .npy (convert's, golden
  // against numpy.loadtxt above): the text reader and the .npy reader feed the gather alike.
  it('gathers from text by its extension, or from stdin with --from, as from its .npy', () => {
    const dir = tempDir();
    const runs: [string, string[]][] = [
      ['gather', ['--indices', '[[1,0],[0,0]]', '--axis', '1']],
      ['gather-elements', ['--indices', '[[1,0],[0,1]]', '--axis', '1']],
      ['gather-nd', ['--indices', '[[1,0],[0,1]]']],
    ];
    for (const [name, ext] of [
      ['int64-edges', 'csv'],
      ['tsv-rows', 'tsv'],
      ['comments-and-blank-lines', 'txt'],
      ['round-once-float16', 'txt'],
      ['json-2d', 'json'],
    ] as const) {
      const c = golden(name);
      const text = writeCase(dir, name, ext);
      const npy = join(dir, `${name}.npy`);
      ok(['convert', text, npy, ...flagsOf(c)]);
      expectNpy(readFileSync(npy), c);
      for (const [command, rest] of runs) {
        // round-once-float16 is 1-D: gather along its one axis, gather-nd with 1-tuples.
        const flags =
          c.expected?.shape.length === 1
            ? command === 'gather-nd'
              ? ['--indices', '[[3],[0]]']
              : ['--indices', '[3,0,3]']
            : rest;
        const want = ok([command, npy, ...flags]);
        expect(ok([command, text, ...flags, ...flagsOf(c)]).equals(want)).toBe(true);
        const piped = ok([command, '-', ...flags, '--from', ext, ...flagsOf(c)], c.text);
        expect(piped.equals(want)).toBe(true);
      }
    }
  });

  it('picks the values numpy.loadtxt read, bit for bit', () => {
    const dir = tempDir();
    const c = golden('int64-edges');
    writeFileSync(join(dir, 'big.csv'), c.text);
    const t = decodeNpy(ok(['gather', join(dir, 'big.csv'), '--indices', '1', '--dtype', 'int64']));
    const rows = Buffer.from((c.expected as NonNullable<GoldenCase['expected']>).b64, 'base64');
    expect({ dtype: t.dtype, shape: t.shape }).toEqual({ dtype: 'int64', shape: [2] });
    expect(Buffer.from(t.data).equals(rows.subarray(16, 32))).toBe(true);
  });

  it('applies --slice and DATA[...] to text data before the gather', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'rows.csv'), '1,2,3\n4,5,6\n7,8,9\n');
    writeFileSync(join(dir, 'rows.txt'), '1 2 3\n4 5 6\n7 8 9\n');
    ok(['convert', join(dir, 'rows.txt'), join(dir, 'rows.npy')]);
    const cases: [string, string[]][] = [
      ['gather', ['--indices', '[1,0]', '--axis', '1']],
      ['gather-elements', ['--indices', '[[1,0],[0,0]]', '--axis', '1']],
      ['gather-nd', ['--indices', '[[1,1],[0,1]]']],
    ];
    for (const [command, flags] of cases) {
      for (const slice of ['::-2, 1:', '1:']) {
        const want = ok([command, `${join(dir, 'rows.npy')}[${slice}]`, ...flags]);
        const typed = ok([command, `${join(dir, 'rows.csv')}[${slice}]`, ...flags]);
        expect(typed.equals(want)).toBe(true);
        const flag = ok([command, join(dir, 'rows.csv'), '--slice', slice, ...flags]);
        expect(flag.equals(want)).toBe(true);
        const piped = ok(
          [command, '-', '--from', 'txt', '--slice', slice, ...flags],
          '1 2 3\n4 5 6\n7 8 9\n',
        );
        expect(piped.equals(want)).toBe(true);
      }
    }
    // A slice that does not fit names the text file: exit 1.
    const wrong = tensorops(['gather', `${join(dir, 'rows.csv')}[5]`, '--indices', '0']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^tensorops: error: .*rows\.csv: .*index 5 is out of bounds.*\n$/);
    // convert and show take DATA[...] on text data too.
    const shown = tensorops(['show', `${join(dir, 'rows.csv')}[1, ::2]`]);
    expect(shown.stderr).toBe('');
    expect(shown.stdout.toString()).toBe('4.0\n6.0\n');
  });

  it('reads FILE:NAME as a tensor of FILE, whatever NAME ends with', async () => {
    const dir = tempDir();
    const x = tensorFrom('int32', [2, 2], [1, 2, 3, 4]);
    await writeTensorsFile(join(dir, 'a.npz'), [{ name: 'x.csv', data: x }]);
    writeFileSync(join(dir, 'x.npy'), encodeNpy(x));
    const want = ok(['gather', join(dir, 'x.npy'), '--indices', '1']);
    expect(ok(['gather', `${join(dir, 'a.npz')}:x.csv`, '--indices', '1']).equals(want)).toBe(true);
    expect(ok(['show', `${join(dir, 'a.npz')}:x.csv[1]`]).toString()).toBe('3\n4\n');
  });

  it('reads a .csv indices file as indices; the text flags read DATA alone', () => {
    const dir = tempDir();
    const rows = join(dir, 'rows.txt');
    writeFileSync(rows, '1;2;3\n4;5;6\n');
    // Commas and a line end: index text, which --delimiter ';' would not split.
    writeFileSync(join(dir, 'idx.csv'), '2,0\n');
    writeFileSync(join(dir, 'nd.csv'), '1,2\n');
    const text = ['--delimiter', ';', '--dtype', 'int16'];
    const picked = ok(['gather', rows, join(dir, 'idx.csv'), '--axis', '1', ...text]);
    expect(picked.equals(ok(['gather', rows, '--indices', '2,0', '--axis', '1', ...text]))).toBe(
      true,
    );
    const t = decodeNpy(picked);
    expect({ dtype: t.dtype, shape: t.shape }).toEqual({ dtype: 'int16', shape: [2, 2] });
    expect([...new Int16Array(t.data.slice().buffer)]).toEqual([3, 1, 6, 4]);
    const nd = decodeNpy(ok(['gather-nd', rows, join(dir, 'nd.csv'), ...text]));
    expect({ dtype: nd.dtype, shape: nd.shape }).toEqual({ dtype: 'int16', shape: [] });
    expect([...new Int16Array(nd.data.slice().buffer)]).toEqual([6]);
    // Indices as text on stdin, DATA a text file.
    const piped = ok(['gather', rows, '-', '--axis', '1', ...text], '2\n0\n');
    expect(piped.equals(picked)).toBe(true);
  });

  it('usage errors name the input the flags read: exit 2, nothing written', () => {
    const FROM_IS_STDIN_DATA =
      "--from reads DATA on stdin (-) as text, never the indices; a DATA file is text by its .csv/.tsv/.txt/.json extension (any other: give - and '< FILE')";
    const dir = tempDir();
    writeFileSync(join(dir, 'rows.csv'), '1,2\n3,4\n');
    writeFileSync(join(dir, 'idx.csv'), '1,0\n');
    const npy = join(REPO, 'fixtures/text/int8.npy');
    const cases: [string[], string, string?][] = [
      [
        ['gather', npy, 'idx.csv', '--dtype', 'int8', '-o', 'o.npy'],
        `--dtype reads text data (.csv, .tsv, .txt, .json, or --from), and ${npy} is a tensor file`,
      ],
      [
        ['gather-elements', npy, 'idx.csv', '--delimiter', ';'],
        `--delimiter reads text data (.csv, .tsv, .txt, .json, or --from), and ${npy} is a tensor file`,
      ],
      // --from reads DATA on stdin alone: never a file's kind, never the indices'.
      [['gather', 'rows.csv', '-', '--from', 'csv'], FROM_IS_STDIN_DATA, '0\n'],
      [['gather-elements', npy, 'idx.csv', '--from', 'txt'], FROM_IS_STDIN_DATA],
      [['gather-nd', 'rows.csv', '--indices', '[0]', '--from', 'csv'], FROM_IS_STDIN_DATA],
      [
        ['gather-nd', '-', '-', '--from', 'csv'],
        'standard input (-) can be used for one input only',
        '0\n',
      ],
      [['gather', 'rows.csv', '--indices', '0', '--slice', '[0'], '--slice: '],
      [
        ['gather', 'http://127.0.0.1:9/rows.csv', '--indices', '0'],
        'http://127.0.0.1:9/rows.csv: text data is read from a file or stdin, not a URL',
      ],
    ];
    for (const [args, message, input] of cases) {
      const r = tensorops(args, {
        cwd: dir,
        ...(input === undefined ? {} : { input: Buffer.from(input) }),
      });
      expect(r.stderr).toMatch(/^tensorops: error: [^\n]+\n$/);
      expect(r.stderr).toContain(message);
      expect(r.status).toBe(2);
      expect(r.stdout.length).toBe(0);
    }
    expect(listDir(dir)).toEqual(['idx.csv', 'rows.csv']);
  });

  it('a bad value in text DATA: one line naming file, line and column, exit 1, nothing written', () => {
    const dir = tempDir();
    for (const command of ['gather', 'gather-elements', 'gather-nd']) {
      const c = golden('ragged-fewer');
      writeFileSync(join(dir, 'bad.csv'), c.text);
      const r = tensorops([command, 'bad.csv', '--indices', '[[0]]', '-o', 'out.npy'], {
        cwd: dir,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^tensorops: error: bad\\.csv:${c.error}: [^\\n]+\\n$`));
      expect(existsSync(join(dir, 'out.npy'))).toBe(false);
    }
  });
});
