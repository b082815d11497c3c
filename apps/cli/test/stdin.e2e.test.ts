// Data on standard input. A regular file on stdin (`< data.npy`) is read by ranges like a file
// argument; a large .npy on a pipe is read once, window by window, its picked rows copied out as
// they pass (memory: the output and a window, never the data). /usr/bin/time, where present, pins
// the peak memory of each.

import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { encodeNpy, encodeNpyHeader } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { BIN, listDir, tempDir, tensorops } from './helpers.js';

/** Runs `sh -c script` with the bin as $0 and `args` as $1...; $NODE is this node. */
function shell(script: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync('sh', ['-c', script, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', NODE: process.execPath, ...env },
    maxBuffer: 1 << 28,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

const TIME = '/usr/bin/time';

/** A .npy of `rows` x 1024 int32 where row r holds r * 1024 + c. */
function rowsNpy(path: string, rows: number): void {
  const header = encodeNpyHeader({ dtype: 'int32', shape: [rows, 1024] });
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  const block = new Int32Array(256 * 1024);
  for (let r0 = 0; r0 < rows; r0 += 256) {
    const n = Math.min(256, rows - r0);
    for (let i = 0; i < n * 1024; i++) block[i] = r0 * 1024 + i;
    writeSync(fd, new Uint8Array(block.buffer, 0, n * 4096));
  }
  closeSync(fd);
}

/** Peak RSS in MiB from the last stderr line that `/usr/bin/time -f %M` printed. */
function peakMiB(stderr: string): number {
  return Number(stderr.trim().split('\n').at(-1)) / 1024;
}

/**
 * `cat DATA | tensorops gather - INDICES -o OUT` on a .npy of `rows` x 1024 int32 (see rowsNpy)
 * under /usr/bin/time: the output's int32 values and the peak RSS in MiB.
 */
function pipedGather(rows: number, picks: number[]): { values: Int32Array; peak: number } {
  const dir = tempDir();
  const [data, idx, out] = ['d.npy', 'i.npy', 'o.npy'].map((f) => join(dir, f)) as string[];
  rowsNpy(data as string, rows);
  indicesNpy(idx as string, picks);
  const scratch = join(dir, 'tmp');
  mkdirSync(scratch);
  const r = shell(
    `cat "$2" | ${TIME} -f %M "$NODE" "$0" gather - "$1" -o "$3"`,
    [idx as string, data as string, out as string],
    { TMPDIR: scratch },
  );
  expect(r.status).toBe(0);
  // A pipe copied to a temp file for the gather leaves nothing there.
  expect(readdirSync(scratch)).toEqual([]);
  const got = readFileSync(out as string);
  return {
    values: new Int32Array(got.buffer, got.byteOffset + 128, picks.length * 1024),
    peak: peakMiB(r.stderr),
  };
}

function indicesNpy(path: string, picks: number[]): void {
  const fd = openSync(path, 'w');
  writeSync(fd, encodeNpy(tensorFrom('int64', [picks.length], picks)));
  closeSync(fd);
}

describe('data on stdin', () => {
  it('a regular file on stdin gives the bytes the same file as an argument gives', () => {
    const dir = tempDir();
    const data = join(dir, 'd.npy');
    const idx = join(dir, 'i.npy');
    rowsNpy(data, 300);
    indicesNpy(idx, [299, 0, 7, -1, 7]);
    const asArgument = tensorops(['gather', data, idx]);
    expect(asArgument.status).toBe(0);
    const onStdin = shell('exec "$NODE" "$0" gather - "$1" < "$2"', [idx, data]);
    expect(onStdin.stderr).toBe('');
    expect(Buffer.compare(onStdin.stdout, asArgument.stdout)).toBe(0);
    const piped = shell('cat "$2" | "$NODE" "$0" gather - "$1"', [idx, data]);
    expect(piped.stderr).toBe('');
    expect(Buffer.compare(piped.stdout, asArgument.stdout)).toBe(0);
  });

  it('a file on stdin that was read from already is streamed from where the reader stopped', () => {
    const dir = tempDir();
    const data = join(dir, 'd.npy');
    const idx = join(dir, 'i.npy');
    rowsNpy(data, 4);
    indicesNpy(idx, [0]);
    const r = shell('(head -c 6 > /dev/null; exec "$NODE" "$0" gather - "$1") < "$2"', [idx, data]);
    expect(r.status).toBe(1);
    // From the start, the file would have been read.
    expect(r.stderr).toBe(
      "tensorops: error: not a .npy file: it does not start with '\\x93NUMPY'\n",
    );
  });

  it('an 8 GiB sparse .npy on stdin: only the picked rows are read (no 4 GiB cap, no copy)', () => {
    const dir = tempDir();
    const data = join(dir, 'huge.npy');
    const rows = 2 ** 21;
    const header = encodeNpyHeader({ dtype: 'int32', shape: [rows, 1024] });
    const fd = openSync(data, 'w');
    writeSync(fd, header);
    const last = new Int32Array(1024).fill(42);
    writeSync(fd, new Uint8Array(last.buffer), 0, 4096, header.length + (rows - 1) * 4096);
    ftruncateSync(fd, header.length + rows * 4096);
    closeSync(fd);
    const idx = join(dir, 'i.npy');
    indicesNpy(idx, [rows - 1, 3]);
    const timed = existsSync(TIME);
    const r = shell(
      timed
        ? `exec ${TIME} -f %M "$NODE" "$0" gather - "$1" -o "$3" < "$2"`
        : 'exec "$NODE" "$0" gather - "$1" -o "$3" < "$2"',
      [idx, data, join(dir, 'o.npy')],
    );
    expect(r.status).toBe(0);
    const out = readFileSync(join(dir, 'o.npy'));
    const values = new Int32Array(out.buffer, out.byteOffset + 128, 2048);
    expect(values[0]).toBe(42);
    expect(values[1023]).toBe(42);
    expect(values[1024]).toBe(0);
    if (timed) expect(peakMiB(r.stderr)).toBeLessThan(200);
  });

  it.skipIf(!existsSync(TIME))(
    'a 128 MiB .npy through a pipe, every row picked: copied to an unlinked temp file and gathered in reused buffers (peak < data + 96 MiB)',
    () => {
      const rows = 32768;
      // Every row once, in a scrambled order: the output is as large as the data, so the pipe is
      // copied to a temp file rather than swept into an output held whole.
      const picks = Array.from({ length: rows }, (_, i) => (i * 7919) % rows);
      const { values, peak } = pipedGather(rows, picks);
      // The copy runs near 120 MiB (node's own ~50 MiB, two 32 MiB output chunks, a window); an
      // output held whole reaches data + 60 MiB, and holding the data beside it, the defect this
      // guards, data * 2 + 50 MiB.
      expect(peak).toBeLessThan(128 + 96);
      for (const k of [0, 1, rows >> 1, rows - 1]) {
        expect(values[k * 1024]).toBe((picks[k] as number) * 1024);
        expect(values[k * 1024 + 1023]).toBe((picks[k] as number) * 1024 + 1023);
      }
    },
  );

  it.skipIf(!existsSync(TIME))(
    'a 192 MiB .npy through a pipe, a few rows picked: memory is the output and a window (< 128 MiB)',
    () => {
      const rows = 49152;
      const { values, peak } = pipedGather(rows, [rows - 1, 0, 12345, rows - 1]);
      // Node's own ~50 MiB and a window; holding the data once would be 192 MiB more.
      expect(peak).toBeLessThan(128);
      expect([values[0], values[1024], values[2048 + 5], values[3 * 1024 + 1023]]).toEqual([
        (rows - 1) * 1024,
        0,
        12345 * 1024 + 5,
        rows * 1024 - 1,
      ]);
    },
  );

  it('a large .npy written into the stdin of the CLI, along axis 1 with batch dims: the bytes the file gives', () => {
    const dir = tempDir();
    // [2, 8200, 1024] int32: 64 MiB and more, so that the pipe is swept, not loaded.
    const shape = [2, 8200, 1024];
    const header = encodeNpyHeader({ dtype: 'int32', shape });
    const values = new Int32Array(2 * 8200 * 1024);
    for (let i = 0; i < values.length; i++) values[i] = i ^ 0x5a5a;
    const bytes = Buffer.concat([header, new Uint8Array(values.buffer)]);
    const data = join(dir, 'd.npy');
    writeFileSync(data, bytes);
    const idx = join(dir, 'i.npy');
    writeFileSync(idx, encodeNpy(tensorFrom('int64', [2, 4], [8199, 0, -1, 4000, 3, 3, 8198, 1])));
    const args = ['--axis', '1', '--batch-dims', '1'];
    const fromFile = tensorops(['gather', data, idx, ...args]);
    expect(fromFile.status).toBe(0);
    const fromPipe = tensorops(['gather', '-', idx, ...args], { input: bytes });
    expect(fromPipe.stderr).toBe('');
    expect(fromPipe.status).toBe(0);
    expect(Buffer.compare(fromPipe.stdout, fromFile.stdout)).toBe(0);
  });

  it('a pipe that ends before its declared data: one line, exit 1, no output file left', () => {
    const dir = tempDir();
    const data = join(dir, 'd.npy');
    const idx = join(dir, 'i.npy');
    rowsNpy(data, 17000); // 66 MiB and more: swept
    indicesNpy(idx, [1, 2]);
    const r = shell('head -c 50000000 "$2" | "$NODE" "$0" gather - "$1" -o "$3"', [
      idx,
      data,
      join(dir, 'o.npy'),
    ]);
    expect(r.status).toBe(1);
    // Named by the output it was writing, then by the input that fell short.
    expect(r.stderr).toMatch(
      /^tensorops: error: \S+o\.npy: stdin: \.npy data truncated: header claims 69632000 bytes, the stream ended after 49999872\n$/,
    );
    expect(listDir(dir)).toEqual(['d.npy', 'i.npy']);
  });

  it('a pipe copy that never answers: node runs out of work, and that is exit 1 with one line, no output left', () => {
    const dir = tempDir();
    const data = join(dir, 'd.npy');
    const idx = join(dir, 'i.npy');
    rowsNpy(data, 17000); // 66 MiB and more, thousands of rows picked: copied to a temp file
    indicesNpy(
      idx,
      Array.from({ length: 4000 }, (_, k) => (k * 7919) % 17000),
    );
    // A preload replaces the copy worker by one that takes the job and never answers: what a
    // worker lost without a word would leave. The gather waits on a copy nothing can advance.
    const preload = join(dir, 'silent-worker.cjs');
    writeFileSync(
      preload,
      `const threads = require('node:worker_threads');
      const { EventEmitter } = require('node:events');
      threads.Worker = class extends EventEmitter {
        postMessage() {}
        ref() {}
        unref() {}
        terminate() { return Promise.resolve(0); }
      };`,
    );
    const r = tensorops(['gather', '-', idx, '-o', join(dir, 'o.npy')], {
      input: readFileSync(data),
      nodeArgs: ['--require', preload],
      env: { TMPDIR: dir },
    });
    expect(r.stderr).toBe(
      'tensorops: error: internal error: the command stopped before it finished: nothing it waited for could happen\n',
    );
    expect(r.status).toBe(1);
    expect(listDir(dir)).toEqual(['d.npy', 'i.npy', 'silent-worker.cjs']);
  });
});

/** Whether this process may mount a read-only tmpfs in a mount namespace of its own. */
describe('a temp folder that cannot hold the copy of a pipe', () => {
  /** 66 MiB piped, 4000 rows picked: what is copied to a temp file where the folder allows. */
  function copiedCase() {
    const dir = tempDir();
    const data = join(dir, 'd.npy');
    const idx = join(dir, 'i.npy');
    rowsNpy(data, 17000);
    indicesNpy(
      idx,
      Array.from({ length: 4000 }, (_, k) => (k * 7919) % 17000),
    );
    const expected = tensorops(['gather', data, idx]);
    expect(expected.status).toBe(0);
    return { dir, data, idx, expected: expected.stdout };
  }

  it('TMPDIR a regular file, or a folder whose temp file name is too long: the pipe is swept', () => {
    const { dir, data, idx, expected } = copiedCase();
    const file = join(dir, 'a-file');
    writeFileSync(file, 'kept');
    // 4080 characters: the folder exists, a temp file's path in it is longer than the kernel takes.
    let long = join(dir, 'long');
    while (4080 - long.length > 256) long = join(long, 'd'.repeat(200));
    long = join(long, 'd'.repeat(4080 - long.length - 1));
    mkdirSync(long, { recursive: true });
    for (const tmp of [file, long, join(file, 'below-a-file')]) {
      const out = join(dir, 'o.npy');
      const r = shell('cat "$2" | "$NODE" "$0" gather - "$1" -o "$3"', [idx, data, out], {
        TMPDIR: tmp,
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(readFileSync(out).equals(expected)).toBe(true);
    }
    expect(readFileSync(file, 'utf8')).toBe('kept');
    expect(readdirSync(long)).toEqual([]);
  });

  // The mount is made in a user and mount namespace of this one command (`unshare -Urm`), where
  // any user is root, so the case runs whoever runs the suite.
  it('TMPDIR on a read-only file system with room (EROFS, even for root): the pipe is swept', () => {
    const { dir, data, idx, expected } = copiedCase();
    const readOnly = join(dir, 'ro');
    mkdirSync(readOnly);
    const out = join(dir, 'o.npy');
    // The mount lives in the namespace of this one command and goes with it.
    const r = shell(
      'exec unshare -Urm sh -c \'mount -t tmpfs -o ro,size=1g none "$4" && cat "$2" | "$NODE" "$0" gather - "$1" -o "$3"\' "$0" "$1" "$2" "$3" "$4"',
      [idx, data, out, readOnly],
      { TMPDIR: readOnly },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(out).equals(expected)).toBe(true);
  });
});
