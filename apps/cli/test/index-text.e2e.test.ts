import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tensorFrom, tensorValues } from '@tensorops/core';
import { decodeNpy, encodeNpy } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { listDir, REPO, tempDir, tensorops } from './helpers.js';

const fx = (name: string): string => join(REPO, 'fixtures', 'cli', `${name}.npy`);

/** The .npy of int64 indices with this shape: what the text forms must be equivalent to. */
function npyIndices(shape: number[], values: number[]): Buffer {
  return Buffer.from(encodeNpy(tensorFrom('int64', shape, values.map(BigInt))));
}

/** Runs a command and returns its .npy stdout, asserting success. */
function ok(args: string[], options: { input?: Uint8Array; cwd?: string } = {}): Buffer {
  const r = tensorops(args, options);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('index tensors as text', () => {
  const rows = [4, 0, 2];
  const pairs = [
    [4, 0],
    [-1, 2],
  ];

  it('stdin: text of one id per line is a 1-D index tensor; .npy bytes still are .npy', () => {
    const dir = tempDir();
    const reference = ok(['gather', fx('data'), '-', '--axis', '1'], {
      input: npyIndices([3], rows),
    });
    for (const text of ['4\n0\n2\n', '4\r0\r2', '4\r\n0\r2\n']) {
      expect(ok(['gather', fx('data'), '-', '--axis', '1'], { input: Buffer.from(text) })).toEqual(
        reference,
      );
    }
    writeFileSync(join(dir, 'idx.npy'), npyIndices([3], rows));
    expect(ok(['gather', fx('data'), 'idx.npy', '--axis', '1'], { cwd: dir })).toEqual(reference);
  });

  it("text takes numpy.loadtxt's shapes and JSON keeps its nesting, as np.take reads them", () => {
    const dir = tempDir();
    const emb = tensorFrom(
      'float32',
      [5, 4],
      Array.from({ length: 20 }, (_, i) => i / 4),
    );
    writeFileSync(join(dir, 'emb.npy'), encodeNpy(emb));
    // Each text, and the shape numpy gives it: np.loadtxt for rows, np.array for JSON.
    const forms: [text: string, shape: number[], values: number[]][] = [
      ['3,1,4', [3], [3, 1, 4]],
      ['3 1 4\n', [3], [3, 1, 4]],
      ['3\n1\n4\n', [3], [3, 1, 4]],
      ['3,1\n4,0\n', [2, 2], [3, 1, 4, 0]],
      ['3', [], [3]],
      [' -2 \r\n\r\n', [], [-2]],
      ['[3,1,4]', [3], [3, 1, 4]],
      ['[[3,1,4]]', [1, 3], [3, 1, 4]],
      ['[3]', [1], [3]],
      ['[[3]]', [1, 1], [3]],
    ];
    for (const [text, shape, values] of forms) {
      writeFileSync(join(dir, 'ref.npy'), npyIndices(shape, values));
      const reference = ok(['gather', 'emb.npy', 'ref.npy'], { cwd: dir });
      const expected = decodeNpy(reference);
      expect(expected.shape).toEqual([...shape, 4]);
      writeFileSync(join(dir, 'ids.txt'), text);
      expect(ok(['gather', 'emb.npy', '--indices', text], { cwd: dir })).toEqual(reference);
      expect(ok(['gather', 'emb.npy', '-'], { cwd: dir, input: Buffer.from(text) })).toEqual(
        reference,
      );
      expect(ok(['gather', 'emb.npy', 'ids.txt'], { cwd: dir })).toEqual(reference);
    }
    // A scalar index drops the axis it takes along, wherever that axis is.
    const column = decodeNpy(
      ok(['gather', 'emb.npy', '--indices', '2', '--axis', '1'], { cwd: dir }),
    );
    expect(column.shape).toEqual([5]);
    expect(Array.from(tensorValues(column), Number)).toEqual([0.5, 1.5, 2.5, 3.5, 4.5]);
  });

  it('.txt, .csv, .tsv and .json files are read as text by extension, rows of k values as [n, k]', () => {
    const dir = tempDir();
    const reference = ok(['gather', fx('data'), fx('idx'), '--axis', '1']);
    const files = {
      'idx.txt': '4 0\n-1 2\n',
      'idx.csv': '4,0\r\n-1,2\r\n\r\n',
      'idx.tsv': '4\t0\n-1\t2',
      'idx.json': JSON.stringify(pairs),
      'IDX.CSV': '4, 0\n-1, 2\n',
    };
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(dir, name), text);
      expect(ok(['gather', fx('data'), name, '--axis', '1'], { cwd: dir })).toEqual(reference);
    }
  });

  it('--indices gives them inline to gather, gather-elements and gather-nd', () => {
    expect(ok(['gather', fx('data'), '--indices', '[[4,0],[-1,2]]', '--axis', '1'])).toEqual(
      ok(['gather', fx('data'), fx('idx'), '--axis', '1']),
    );
    const ndIdx = decodeNpy(readFileSync(fx('nd_idx')));
    const ndText = JSON.stringify(
      Array.from({ length: ndIdx.shape[0] as number }, (_, i) =>
        tensorValues(ndIdx)
          .slice(i * 2, i * 2 + 2)
          .map(Number),
      ),
    );
    expect(ok(['gather-nd', fx('data'), '--indices', ndText])).toEqual(
      ok(['gather-nd', fx('data'), fx('nd_idx')]),
    );
    const geJson = ok(['gather-elements', fx('data'), '--indices', '[[[0]],[[1]]]', '--json']);
    expect(JSON.parse(geJson.toString()).shape).toEqual([2, 1, 1]);
  });

  it('values are exact int64: 2^53+1 reaches the op as itself', () => {
    const r = tensorops(['gather', fx('data'), '--indices', '9007199254740993']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('9007199254740993');
    expect(r.stderr).not.toContain('9007199254740992');
  });

  it('gather-tree and beams take their three inputs as text', () => {
    const dir = tempDir();
    const asJson = (name: string): string => {
      const t = decodeNpy(readFileSync(fx(name)));
      const flat = Array.from(tensorValues(t), Number);
      const [time, batch, beam] = t.shape as number[];
      if (t.shape.length === 1) return JSON.stringify(flat);
      return JSON.stringify(
        Array.from({ length: time as number }, (_, i) =>
          Array.from({ length: batch as number }, (_, j) =>
            flat.slice(
              (i * (batch as number) + j) * (beam as number),
              (i * (batch as number) + j + 1) * (beam as number),
            ),
          ),
        ),
      );
    };
    writeFileSync(join(dir, 'steps.json'), asJson('gt_steps'));
    writeFileSync(join(dir, 'parents.json'), asJson('gt_parents'));
    const lengths = asJson('gt_lengths');
    const fromText = ok(['gather-tree', 'steps.json', 'parents.json', '-', '--end-token', '10'], {
      cwd: dir,
      input: Buffer.from(lengths),
    });
    const got = decodeNpy(fromText);
    const expected = decodeNpy(readFileSync(fx('gt_expected')));
    expect(got.dtype).toBe('int64');
    expect(got.shape).toEqual(expected.shape);
    expect(Array.from(tensorValues(got), Number)).toEqual(
      Array.from(tensorValues(expected), Number),
    );
    const beams = tensorops(
      ['beams', 'steps.json', 'parents.json', '-', '--end-token', '10', '--json'],
      {
        cwd: dir,
        input: Buffer.from(lengths),
      },
    );
    expect(beams.status).toBe(0);
    const reference = tensorops([
      'beams',
      fx('gt_steps'),
      fx('gt_parents'),
      fx('gt_lengths'),
      '--end-token',
      '10',
      '--json',
    ]);
    // The same beams; only the dtype differs (text indices are int64, the fixtures int32).
    const { dtype, ...text } = JSON.parse(beams.stdout.toString());
    const { dtype: fixtureDtype, ...fixture } = JSON.parse(reference.stdout.toString());
    expect([dtype, fixtureDtype]).toEqual(['int64', 'int32']);
    expect(text).toEqual(fixture);
  });

  it('bad text is one line naming the line and column, exit 1, and no output', () => {
    const cases: [string, string][] = [
      ['1\n2.5\n', "stdin: line 2, column 1: '2.5' is not an integer"],
      ['1\nten\n', "stdin: line 2, column 1: 'ten' is not an integer"],
      ['1,2\n3\n', 'stdin: line 2, column 1: this line has 1 values, the first line 2'],
      ['9223372036854775808\n', "stdin: line 1, column 1: '9223372036854775808' is beyond int64"],
      ['', 'stdin: line 1, column 1: no indices: the input is empty'],
      ['[[1],[2,3]]', 'stdin: line 1, column 10: ragged array: 2 items here, 1 in an earlier one'],
    ];
    for (const [text, message] of cases) {
      const dir = tempDir();
      const r = tensorops(['gather', fx('data'), '-', '-o', 'out.npy'], {
        cwd: dir,
        input: Buffer.from(text),
      });
      expect(r.stderr).toBe(`tensorops: error: ${message}\n`);
      expect(r.status).toBe(1);
      expect(listDir(dir)).toEqual([]);
    }
    const file = tensorops(['gather', fx('data'), 'missing.csv']);
    expect(file.stderr).toBe(
      'tensorops: error: missing.csv: cannot read: no such file or directory\n',
    );
    expect(file.status).toBe(1);
  });

  it('a bad value at the end of a 32 MiB line is found with a heap smaller than the line', () => {
    // Finding the column takes no memory in proportion to the line: the CLI's heap is capped
    // below the line's length, and the values read before the error live outside the heap.
    const dir = tempDir();
    const pairs = 16 << 20;
    writeFileSync(join(dir, 'ids.txt'), `${'7,'.repeat(pairs)}x\n`);
    const r = tensorops(['gather', fx('data'), 'ids.txt', '-o', 'out.npy'], {
      cwd: dir,
      nodeArgs: ['--max-old-space-size=32'],
    });
    expect(r.stderr).toBe(
      `tensorops: error: ids.txt: line 1, column ${2 * pairs + 1}: 'x' is not an integer\n`,
    );
    expect(r.status).toBe(1);
    expect(listDir(dir)).toEqual(['ids.txt']);
  });

  it('the indices come from INDICES_FILE or --indices: both or neither is a usage error', () => {
    const dir = tempDir();
    const both = tensorops(['gather', fx('data'), fx('idx'), '--indices', '1'], { cwd: dir });
    expect(both.stderr).toBe(
      'tensorops: error: give the indices as INDICES_FILE or --indices, not both\n',
    );
    expect(both.status).toBe(2);
    const neither = tensorops(['gather-nd', fx('data')], { cwd: dir });
    expect(neither.stderr).toBe(
      'tensorops: error: no indices: give INDICES_FILE, - or --indices\n',
    );
    expect(neither.status).toBe(2);
    const twice = tensorops(['gather', '-', '-'], { input: Buffer.from('1\n') });
    expect(twice.status).toBe(2);
    expect(existsSync(join(dir, 'out.npy'))).toBe(false);
  });
});
