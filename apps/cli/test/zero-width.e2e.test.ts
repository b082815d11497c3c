// Zero-width strings (U0, S0), as numpy reads them: elements of no bytes, each ''. Every command
// takes them, on the numpy-written fixtures of scripts/fixtures/npy.py, and nothing is sized by
// the header's shape alone (a trillion of them is a 128-byte file and costs nothing to handle).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, tempDir, tensorops } from './helpers.js';

const NPY = join(REPO, 'fixtures', 'npy');
const fixture = (name: string): string => join(NPY, name);

function json(args: string[]): { dtype: string; shape: number[]; data: unknown } {
  const r = tensorops([...args, '--json']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout.toString());
}

describe('zero-width strings (U0, S0)', () => {
  it('inspect lists them with their shape and no bytes', () => {
    const r = tensorops(['inspect', fixture('u0.npy'), fixture('s0-scalar.npy')]);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toMatch(/-\s+U0\s+\[3\]\s+0\s+128\s+<U0/);
    expect(r.stdout.toString()).toMatch(/-\s+S0\s+\[\]\s+0\s+128\s+\|S0/);
  });

  it('show prints every element as the empty string in JSON; CSV refuses an empty line', () => {
    expect(json(['show', fixture('u0.npy')])).toEqual({
      dtype: 'U0',
      shape: [3],
      data: ['', '', ''],
    });
    expect(json(['show', fixture('s0.npy')]).data).toEqual(['', '', '']);
    expect(json(['show', fixture('u0-2x0.npy')]).data).toEqual([[], []]);
    expect(json(['show', fixture('s0-scalar.npy')]).data).toBe('');
    // Alone on its line an empty string is an empty line, which numpy.loadtxt skips: refused.
    const csv = tensorops(['show', fixture('u0.npy'), '--format', 'csv']);
    expect(csv.stderr).toBe(
      'tensorops: error: the string at [0] is empty and alone on its line, which numpy.loadtxt skips; write .json or .npy\n',
    );
    expect(csv.status).toBe(1);
    expect(csv.stdout.length).toBe(0);
    expect(json(['show', fixture('u0-trillion.npy'), '--head', '2'])).toEqual({
      dtype: 'U0',
      shape: [2],
      data: ['', ''],
    });
  });

  it('convert writes back the bytes numpy writes, and through .npz', () => {
    const dir = tempDir();
    for (const name of ['u0.npy', 's0.npy', 'u0-2x0.npy', 's0-scalar.npy', 'u0-trillion.npy']) {
      const out = join(dir, name);
      expect(tensorops(['convert', fixture(name), out]).status).toBe(0);
      expect(readFileSync(out).equals(readFileSync(fixture(name)))).toBe(true);
    }
    const npz = join(dir, 'z.npz');
    expect(tensorops(['convert', fixture('s0.npy'), npz]).status).toBe(0);
    expect(json(['show', npz])).toEqual({ dtype: 'S0', shape: [3], data: ['', '', ''] });
  });

  it('gathers give the shape the indices say and no bytes', () => {
    const g = json(['gather', fixture('u0.npy'), '--indices', '[[0, 2], [1, -1]]']);
    expect(g).toEqual({
      dtype: 'U0',
      shape: [2, 2],
      data: [
        ['', ''],
        ['', ''],
      ],
    });
    const far = json(['gather', fixture('u0-trillion.npy'), '--indices', '[999999999999, 3]']);
    expect(far).toEqual({ dtype: 'U0', shape: [2], data: ['', ''] });
    expect(json(['gather-elements', fixture('s0.npy'), '--indices', '[2, 0]']).shape).toEqual([2]);
    expect(json(['gather-nd', fixture('u0.npy'), '--indices', '[[2], [0]]']).data).toEqual([
      '',
      '',
    ]);
    const dir = tempDir();
    const out = join(dir, 'g.npy');
    expect(tensorops(['gather', fixture('s0.npy'), '--indices', '[1]', '-o', out]).status).toBe(0);
    expect(readFileSync(out).subarray(10, 60).toString('latin1')).toContain("'descr': '|S0'");
  });

  it('on a pipe, read once like any small .npy', () => {
    const r = tensorops(['gather', '-', '--indices', '[2, 2, 0]', '--json'], {
      input: readFileSync(fixture('u0.npy')),
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.toString())).toEqual({
      dtype: 'U0',
      shape: [3],
      data: ['', '', ''],
    });
  });
});
