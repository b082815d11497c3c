import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { encodeNpyHeader } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { BIN, listDir, REPO, tempDir, tensorops } from './helpers.js';

// The golden CSV / TSV / JSON files come from scripts/fixtures/text.py, which proves that
// numpy.loadtxt (json.loads for JSON) reads each one back to the .npy beside it. A fixture with no
// golden file in a format is listed in refused.json with the element the CLI must name.
const TEXT = join(REPO, 'fixtures/text');
type TextFormat = 'csv' | 'tsv' | 'json';
interface Refusal {
  readonly name: string;
  readonly format: TextFormat;
  /** numpy's index of the element, '' for a scalar. */
  readonly at: string;
}
const REFUSED: readonly Refusal[] = JSON.parse(readFileSync(join(TEXT, 'refused.json'), 'utf8'));
const FIXTURES = readdirSync(TEXT)
  .filter((f) => f.endsWith('.npy'))
  .map((f) => f.slice(0, -'.npy'.length))
  .sort();
const golden = (name: string, format: TextFormat): string => join(TEXT, `${name}.${format}`);
const withGolden = (format: TextFormat): string[] =>
  FIXTURES.filter((name) => existsSync(golden(name, format)));
const fx = (name: string): string => join(REPO, 'fixtures', 'cli', `${name}.npy`);

/** A .npy of `count` float32 zeros, sparse on disk (header, then a hole). */
function zerosNpy(dir: string, count: number): string {
  const path = join(dir, 'zeros.npy');
  const header = encodeNpyHeader({ dtype: 'float32', shape: [count] });
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  ftruncateSync(fd, header.byteLength + count * 4);
  closeSync(fd);
  return path;
}

describe('CSV / TSV output: numpy.savetxt layout, shortest round-trip digits', () => {
  it('covers every fixture: each is written (golden file) or refused in CSV and in TSV', () => {
    expect(FIXTURES.length).toBeGreaterThan(30);
    for (const name of FIXTURES) {
      for (const format of ['csv', 'tsv'] as const) {
        const refused = REFUSED.some((r) => r.name === name && r.format === format);
        expect([name, format, existsSync(golden(name, format))]).toEqual([name, format, !refused]);
      }
    }
  });

  it.each(withGolden('csv'))('%s: --format csv on stdout is the golden file', (name) => {
    const r = tensorops(['convert', join(TEXT, `${name}.npy`), '-', '--format', 'csv']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toEqual(readFileSync(golden(name, 'csv')));
  });

  it.each(withGolden('tsv'))(
    '%s: -o FILE.tsv and -o FILE.txt are the golden tab-separated file',
    (name) => {
      const dir = tempDir();
      for (const ext of ['tsv', 'txt']) {
        const out = join(dir, `out.${ext}`);
        const r = tensorops(['convert', join(TEXT, `${name}.npy`), out]);
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        expect(readFileSync(out)).toEqual(readFileSync(golden(name, 'tsv')));
      }
    },
  );

  it('the extension of -o picks CSV for a gather result', () => {
    const dir = tempDir();
    const out = join(dir, 'rows.csv');
    const r = tensorops(['gather', fx('data'), fx('idx'), '--axis', '1', '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const expected = tensorops(['convert', fx('take_axis1'), '-', '--format', 'csv']);
    expect(readFileSync(out, 'utf8')).toBe(expected.stdout.toString());
    // [3, 2, 2, 4] reshaped to (-1, 4): 12 lines of 4 values.
    expect(
      readFileSync(out, 'utf8')
        .split('\n')
        .map((l) => l.split(',').length),
    ).toEqual([...Array(12).fill(4), 1]);
    expect(listDir(dir)).toEqual(['rows.csv']);
  });

  it('--header adds one # comment line (numpy.loadtxt skips it)', () => {
    const r = tensorops(['convert', join(TEXT, 'float32.npy'), '-', '--format', 'csv', '--header']);
    expect(r.status).toBe(0);
    const golden = readFileSync(join(TEXT, 'float32.csv'), 'utf8');
    expect(r.stdout.toString()).toBe(`# dtype float32, shape [3,4]\n${golden}`);
  });

  it('beams: one line per beam, tokens separated by the delimiter', () => {
    const dir = tempDir();
    const inputs = [fx('gt_steps'), fx('gt_parents'), fx('gt_lengths'), '--end-token', '8'];
    const csv = tensorops(['beams', ...inputs, '--format', 'csv']);
    expect(csv.stdout.toString()).toBe('2,6,7\n2,5\n2,6,9\n');
    const out = join(dir, 'beams.txt');
    expect(tensorops(['beams', ...inputs, '-o', out]).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('2\t6\t7\n2\t5\n2\t6\t9\n');
    const json = join(dir, 'beams.json');
    expect(tensorops(['beams', ...inputs, '-o', json]).status).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8')).beams).toHaveLength(3);
  });
});

describe('strings the text forms cannot hold exactly', () => {
  it.each(withGolden('json'))('%s: --json keeps every code unit (the golden document)', (name) => {
    const r = tensorops(['convert', join(TEXT, `${name}.npy`), '-', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toEqual(readFileSync(golden(name, 'json')));
  });

  it.each(REFUSED)(
    '$name as $format: exit 1, one line naming the element, nothing written',
    (c) => {
      const dir = tempDir();
      const out = join(dir, `out.${c.format}`);
      const which = c.at === '' ? 'the string' : `the string at ${c.at}`;
      const line = new RegExp(
        `^tensorops: error: ${escapeRegExp(out)}: ${escapeRegExp(which)} (holds|is) [^\n]+; write (\\.json or )?\\.npy\n$`,
      );
      const r = tensorops(['convert', join(TEXT, `${c.name}.npy`), out]);
      expect(r.stderr).toMatch(line);
      expect(r.status).toBe(1);
      expect(listDir(dir)).toEqual([]);
      const piped = tensorops(['convert', join(TEXT, `${c.name}.npy`), '-', '--format', c.format]);
      expect(piped.stderr).toBe(r.stderr.replace(`${out}: `, ''));
      expect(piped.status).toBe(1);
      expect(piped.stdout.length).toBe(0);
    },
  );
});

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('format choice: usage errors write nothing', () => {
  const gather = ['gather', fx('data'), fx('idx'), '--axis', '1'];

  it('an unknown extension lists the known ones', () => {
    const dir = tempDir();
    const r = tensorops([...gather, '-o', join(dir, 'rows.dat')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `tensorops: error: ${join(dir, 'rows.dat')}: unknown extension '.dat'; known: .npy .npz .safetensors .json .csv .tsv .txt (or give --format)\n`,
    );
    expect(listDir(dir)).toEqual([]);
  });

  it('--format decides for an unknown extension; a name without one is .npy', () => {
    const dir = tempDir();
    expect(tensorops([...gather, '-o', join(dir, 'rows.dat'), '--format', 'csv']).status).toBe(0);
    expect(readFileSync(join(dir, 'rows.dat'), 'utf8')).toMatch(/^[-\d.e+,naif]+\n/);
    expect(tensorops([...gather, '-o', join(dir, 'rows')]).status).toBe(0);
    expect(readFileSync(join(dir, 'rows')).subarray(0, 6).toString('latin1')).toBe('\x93NUMPY');
  });

  it('--format txt is what -o x.txt writes: tab-separated text, to a file or stdout', () => {
    const dir = tempDir();
    const tsv = tensorops([...gather, '--format', 'tsv']);
    expect(tsv.status).toBe(0);
    expect(tsv.stdout.toString()).toMatch(/^[-\d.e+naif]+\t/);
    const txt = tensorops([...gather, '--format', 'txt']);
    expect([txt.stderr, txt.status]).toEqual(['', 0]);
    expect(txt.stdout.toString()).toBe(tsv.stdout.toString());
    for (const name of ['rows.txt', 'rows.dat']) {
      const r = tensorops([...gather, '--format', 'txt', '-o', join(dir, name)]);
      expect([r.stderr, r.status]).toEqual(['', 0]);
      expect(readFileSync(join(dir, name), 'utf8')).toBe(tsv.stdout.toString());
    }
    const csv = tensorops([...gather, '--format', 'txt', '-o', join(dir, 'rows.csv')]);
    expect(csv.status).toBe(2);
    expect(csv.stderr).toMatch(/--format txt contradicts the extension of .*rows\.csv \(csv\)/);
    const json = tensorops([...gather, '--format', 'txt', '--json']);
    expect(json.stderr).toBe(
      'tensorops: error: --json contradicts --format txt; give one of them\n',
    );
    expect(listDir(dir)).toEqual(['rows.dat', 'rows.txt']);
  });

  it('a format that contradicts the extension, or --json against --format', () => {
    const dir = tempDir();
    const a = tensorops([...gather, '-o', join(dir, 'rows.json'), '--format', 'csv']);
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/--format csv contradicts the extension of .*rows\.json \(json\)/);
    const b = tensorops([...gather, '--json', '--format', 'tsv']);
    expect(b.status).toBe(2);
    expect(b.stderr).toBe('tensorops: error: --json contradicts --format tsv; give one of them\n');
    const c = tensorops([...gather, '--format', 'xml']);
    expect(c.status).toBe(2);
    expect(c.stderr).toBe(
      "tensorops: error: --format takes one of npy, npz, safetensors, json, csv, tsv, txt, got 'xml'\n",
    );
    expect(listDir(dir)).toEqual([]);
  });

  it('beams cannot be .npy: a usage error, no file', () => {
    const dir = tempDir();
    const out = join(dir, 'beams.npy');
    const inputs = [fx('gt_steps'), fx('gt_parents'), fx('gt_lengths'), '--end-token', '8'];
    const r = tensorops(['beams', ...inputs, '-o', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('.npy cannot hold them');
    expect(existsSync(out)).toBe(false);
  });

  it('a :NAME on a text file is a usage error', () => {
    const r = tensorops([...gather, '-o', 'rows.csv:x']);
    expect(r.status).toBe(2);
  });
});

describe('text output streams', () => {
  it('--json of 64 MiB of data runs in a 48 MiB heap (one chunk at a time)', () => {
    const dir = tempDir();
    const path = zerosNpy(dir, 16 << 20);
    const r = tensorops(['convert', path, '-', '--json'], {
      nodeArgs: ['--max-old-space-size=48'],
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const text = r.stdout.toString('latin1');
    expect(text.startsWith('{"dtype":"float32","shape":[16777216],"data":[0.0,0.0,')).toBe(true);
    expect(text.endsWith(',0.0]}\n')).toBe(true);
    expect(r.stdout.length).toBe(text.indexOf('[0.0') + 1 + 4 * (16 << 20) - 1 + 3);
  });

  it('CSV to a reader that goes away stops at once, quietly, exit 0', () => {
    const dir = tempDir();
    const path = zerosNpy(dir, 1 << 28); // 1 GiB of data: hours if it were all formatted
    const cmd = `'${process.execPath}' '${BIN}' convert '${path}' - --format csv | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const r = spawnSync('bash', ['-c', cmd], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('0\n');
  });
});
