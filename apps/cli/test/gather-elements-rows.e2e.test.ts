// gather-elements along the last axis with indices in a .npy file reads the indices by blocks of
// rows (src/commands/gather-elements-rows.ts), and a data tensor of 64 MiB or more too where the
// output is a file replaced whole: its output and its errors must be those of core's
// gatherElements on the whole tensors, across blocks and wherever it hands back to the whole run.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTensor, gatherElements, type OobMode, type Tensor } from '@tensorops/core';
import { decodeNpy, encodeNpy } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { tempDir, tensorops } from './helpers.js';

/** xorshift32 words, so that every run sees the same tensors. */
function words(n: number, seed: number): Uint32Array {
  const out = new Uint32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s >>> 0;
  }
  return out;
}

/** float32 data of random bit patterns (NaN payloads and -0 included). */
function data(shape: number[], seed: number): Tensor {
  const t = createTensor('float32', shape);
  new Uint32Array(t.data.buffer).set(words(t.data.length / 4, seed));
  return t;
}

/** int64 or int32 indices in [-size, size) along the last axis. */
function indices(dtype: 'int64' | 'int32', shape: number[], size: number, seed: number): Tensor {
  const t = createTensor(dtype, shape);
  const r = words(t.data.length / (dtype === 'int64' ? 8 : 4), seed);
  const values = Array.from(r, (w) => (w % (2 * size)) - size);
  if (dtype === 'int64') new BigInt64Array(t.data.buffer).set(values.map(BigInt));
  else new Int32Array(t.data.buffer).set(values);
  return t;
}

/** Runs the CLI on the two tensors as .npy files; the output tensor or the error line. */
function run(d: Tensor, ids: Tensor | Uint8Array, axis: number, oob: OobMode = 'error') {
  const dir = tempDir();
  const [dataPath, idsPath, out] = ['d.npy', 'i.npy', 'o.npy'].map((f) => join(dir, f));
  writeFileSync(dataPath as string, encodeNpy(d));
  writeFileSync(idsPath as string, ids instanceof Uint8Array ? ids : encodeNpy(ids));
  const args = ['gather-elements', dataPath, idsPath, '--axis', String(axis), '--oob', oob];
  const r = tensorops([...(args as string[]), '-o', out as string], { timeoutMs: 60_000 });
  if (r.status !== 0) return { status: r.status, stderr: r.stderr };
  return { status: 0, out: decodeNpy(readFileSync(out as string)) };
}

/** What core's whole gather gives: the tensor, or the error line the CLI prints for it. */
function reference(d: Tensor, ids: Tensor, axis: number, oob: OobMode = 'error') {
  try {
    return { status: 0, out: gatherElements(d, ids, { axis, oob }) };
  } catch (e) {
    return { status: 1, stderr: `tensorops: error: ${(e as Error).message}\n` };
  }
}

function expectSame(got: ReturnType<typeof run>, want: ReturnType<typeof reference>) {
  expect(got.status).toBe(want.status);
  if (want.out === undefined) {
    expect(got.stderr).toBe(want.stderr);
    return;
  }
  expect(got.out?.dtype).toBe(want.out.dtype);
  expect(got.out?.shape).toEqual(want.out.shape);
  expect(Buffer.from(got.out?.data ?? []).equals(Buffer.from(want.out.data))).toBe(true);
}

describe('gather-elements along the last axis, indices read by blocks of rows', () => {
  // 1100 rows of 512 int64 indices: 4.4 MiB, two blocks of 4 MiB of rows.
  const d = data([1100, 640], 1);
  const ids = indices('int64', [1100, 512], 640, 2);

  it('equals the whole gather across blocks (int64 and int32 indices, negative ones too)', () => {
    expectSame(run(d, ids, 1), reference(d, ids, 1));
    expectSame(run(d, ids, -1), reference(d, ids, -1));
    const small = indices('int32', [1100, 3], 640, 3);
    expectSame(run(d, small, 1), reference(d, small, 1));
  });

  it('equals it on rank 3 and rank 1', () => {
    const d3 = data([3, 4, 10], 4);
    const i3 = indices('int64', [3, 4, 6], 10, 5);
    expectSame(run(d3, i3, 2), reference(d3, i3, 2));
    const d1 = data([10], 6);
    const i1 = indices('int32', [25], 10, 7);
    expectSame(run(d1, i1, 0), reference(d1, i1, 0));
  });

  it('an index out of range in a later block: the whole run’s message, its position in the whole tensor', () => {
    const bad = createTensor('int64', ids.shape, new Uint8Array(ids.data));
    new BigInt64Array(bad.data.buffer)[1050 * 512 + 7] = 640n;
    const want = reference(d, bad, 1);
    expect(want.stderr).toContain('at indices[1050,7]');
    expectSame(run(d, bad, 1), want);
    expectSame(run(d, bad, 1, 'zero'), reference(d, bad, 1, 'zero'));
  });

  it('indices stored big-endian, or off the last axis, take the whole run', () => {
    const d2 = data([6, 5], 8);
    const i2 = indices('int64', [6, 4], 5, 9);
    const le = encodeNpy(i2);
    const header = Buffer.from(le.subarray(0, le.length - i2.data.length)).toString('latin1');
    const big = Buffer.from(i2.data);
    big.swap64();
    const bigEndian = Buffer.concat([Buffer.from(header.replace("'<i8'", "'>i8'"), 'latin1'), big]);
    expectSame(run(d2, bigEndian, 1), reference(d2, i2, 1));
    const i0 = indices('int64', [4, 5], 6, 10);
    expectSame(run(d2, i0, 0), reference(d2, i0, 0));
  });
});

describe('a data tensor of 64 MiB in a file, written to a file: read by blocks of rows too', () => {
  // float32 [65536, 256]: 64 MiB, the size from which data stays in its file; int32 indices
  // [65536, 256]: 64 MiB, sixteen blocks of rows; the output 64 MiB.
  const big = data([65536, 256], 11);
  const ids = indices('int32', [65536, 256], 256, 12);
  const probe = (dir: string) => {
    // Preloaded into the CLI's process: its peak RSS (VmHWM: its own memory's, where getrusage's
    // maxrss would keep the test runner's from before the exec), printed on stderr at exit.
    const path = join(dir, 'peak-rss.cjs');
    writeFileSync(
      path,
      [
        "const status = () => require('node:fs').readFileSync('/proc/self/status', 'utf8');",
        "process.on('exit', () => process.stderr.write('peak-rss-kb ' + /VmHWM:\\s+(\\d+)/.exec(status())[1] + '\\n'));",
      ].join('\n'),
    );
    return path;
  };
  const peakKb = (stderr: string) => Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1]);
  /** The data and `indices` saved in a temp folder: the folder, and the gather's arguments. */
  const saved = (indices: Tensor) => {
    const dir = tempDir();
    const [d, i] = [join(dir, 'd.npy'), join(dir, 'i.npy')];
    writeFileSync(d, encodeNpy(big));
    writeFileSync(i, encodeNpy(indices));
    return { dir, out: join(dir, 'o.npy'), args: ['gather-elements', d, i, '--axis', '1'] };
  };

  it('gives the whole gather into a new file and over an old one, holding neither the data nor the output', () => {
    const { dir, out, args } = saved(ids);
    const want = gatherElements(big, ids, { axis: 1 });
    const nodeArgs = ['--require', probe(dir)];
    for (const pass of ['new', 'existing']) {
      const r = tensorops([...args, '-o', out], { nodeArgs, timeoutMs: 60_000 });
      expect(r.status, `${pass}: ${r.stderr}`).toBe(0);
      expect(Buffer.from(decodeNpy(readFileSync(out)).data).equals(Buffer.from(want.data))).toBe(
        true,
      );
    }
    const streamedKb = peakKb(
      tensorops([...args, '-o', out], { nodeArgs, timeoutMs: 60_000 }).stderr,
    );
    // On stdout the output is held whole (see the test below), and so is the data.
    const piped = tensorops(args, { nodeArgs, timeoutMs: 60_000 });
    expect(Buffer.from(piped.stdout).equals(readFileSync(out))).toBe(true);
    expect(peakKb(piped.stderr) - streamedKb).toBeGreaterThan(64 * 1024);
  });

  it('an index out of range in the last block: the whole run’s line, the old output kept, nothing left or printed', () => {
    const bad = createTensor('int32', ids.shape, new Uint8Array(ids.data));
    new Int32Array(bad.data.buffer)[65000 * 256 + 9] = 256;
    const { dir, out, args } = saved(bad);
    writeFileSync(out, 'the old output');
    const want = reference(big, bad, 1);
    expect(want.stderr).toContain('at indices[65000,9]');
    const r = tensorops([...args, '-o', out], { timeoutMs: 60_000 });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 1, stderr: want.stderr });
    expect(readFileSync(out, 'utf8')).toBe('the old output');
    expect(readdirSync(dir).sort()).toEqual(['d.npy', 'i.npy', 'o.npy']);
    const piped = tensorops(args, { timeoutMs: 60_000 });
    expect({ status: piped.status, stderr: piped.stderr, bytes: piped.stdout.length }).toEqual({
      status: 1,
      stderr: want.stderr,
      bytes: 0,
    });
  });
});
