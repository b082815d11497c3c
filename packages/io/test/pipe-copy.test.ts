// The pipe copier's worker, on a real FIFO and a real file in a temp folder: what it copies, how
// often it wakes a waiting reader, and that a worker that dies still ends the copy's progress; and
// its copy loop run in the test thread, on real files, for the failures a FIFO cannot give.

import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCopy } from '../src/fast/spill/copy-loop.js';
import { CopyProgress } from '../src/fast/spill/copy-progress.js';
import { startPipeCopier } from '../src/fast/spill/pipe-copy.js';

let dir: string;
const open: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-pipe-copy-'));
});

afterEach(() => {
  for (const fd of open.splice(0)) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

/** A FIFO in the temp folder, open for reading and writing (so that opening it cannot block). */
function fifo(): number {
  const path = join(dir, 'fifo');
  execFileSync('mkfifo', [path]);
  const fd = openSync(path, 'r+');
  open.push(fd);
  return fd;
}

function file(): { path: string; fd: number } {
  const path = join(dir, 'copy.bin');
  const fd = openSync(path, 'w+');
  open.push(fd);
  return { path, fd };
}

describe('startPipeCopier', () => {
  it('copies a pipe fed 64 KiB at a time, publishing its progress once per MiB', async () => {
    const from = fifo();
    const to = file();
    const bytes = 4 << 20;
    const data = new Uint8Array(bytes).map((_, i) => (i * 7 + (i >> 16)) & 255);
    const first = new Uint8Array([1, 2, 3]);
    const progress = new CopyProgress();
    const copier = startPipeCopier();
    const copied = copier.copy(from, to.fd, first, bytes, progress.shared);
    // Blocking writes of one pipe buffer each; the worker drains them as they come.
    for (let at = 0; at < bytes; at += 1 << 16) writeSync(from, data, at, 1 << 16);
    expect(await copied).toBe(bytes);
    expect(progress.ended).toBe(true);
    expect(progress.written).toBe(first.length + bytes);
    const back = readFileSync(to.path);
    expect(Buffer.compare(back.subarray(0, 3), Buffer.from(first))).toBe(0);
    expect(Buffer.compare(back.subarray(3), Buffer.from(data))).toBe(0);
    // `first`, one per MiB (3 or 4: a short pipe read can carry a MiB mark past the end), the
    // end (worker and copier). One per 64 KiB read would be 64 and more; none between, 3.
    expect(progress.updates).toBeGreaterThanOrEqual(6n);
    expect(progress.updates).toBeLessThanOrEqual(7n);
  });

  it('a worker that dies outside its copy loop still ends the progress, so a waiting reader wakes', async () => {
    const from = fifo();
    const to = file();
    const progress = new CopyProgress();
    const waiting = progress.reach(1);
    const copier = startPipeCopier();
    // A negative count makes the worker's buffer allocation throw before its copy loop starts.
    await expect(copier.copy(from, to.fd, new Uint8Array(0), -1, progress.shared)).rejects.toEqual(
      expect.objectContaining({ op: 'read' }),
    );
    await waiting;
    expect(progress.ended).toBe(true);
    expect(progress.written).toBe(0);
  });
});

describe('runCopy, the loop of the worker thread, run here in the test thread', () => {
  it('tells a failed write from a failed read, and ends the progress either way', () => {
    const data = join(dir, 'data.bin');
    writeFileSync(data, new Uint8Array(1000).fill(7));
    const readOnly = openSync(data, 'r');
    const writeOnly = openSync(join(dir, 'out.bin'), 'w');
    open.push(readOnly, writeOnly);

    const writes = new CopyProgress();
    const first = new Uint8Array([1, 2]);
    // The file to write is open for reading only: writing `first` fails.
    const badWrite = runCopy({
      from: readOnly,
      to: readOnly,
      first,
      bytes: 10,
      progress: writes.shared,
    });
    expect(badWrite).toEqual({ failed: expect.objectContaining({ op: 'write', code: 'EBADF' }) });
    expect(writes.ended).toBe(true);
    expect(writes.written).toBe(0);

    const reads = new CopyProgress();
    // The source is open for writing only: `first` is written, the first read fails.
    const badRead = runCopy({
      from: writeOnly,
      to: writeOnly,
      first,
      bytes: 10,
      progress: reads.shared,
    });
    expect(badRead).toEqual({ failed: expect.objectContaining({ op: 'read', code: 'EBADF' }) });
    expect(reads.ended).toBe(true);
    expect(reads.written).toBe(first.length);
  });

  it('copies what the source holds when it ends before `bytes`, and says how much', () => {
    const data = join(dir, 'data.bin');
    const bytes = new Uint8Array(3 << 16).map((_, i) => (i * 13) & 255);
    writeFileSync(data, bytes);
    const from = openSync(data, 'r');
    const to = file();
    open.push(from);
    const progress = new CopyProgress();
    expect(
      runCopy({
        from,
        to: to.fd,
        first: new Uint8Array(0),
        bytes: 4 << 16,
        progress: progress.shared,
      }),
    ).toEqual({
      copied: bytes.length,
    });
    expect(progress.ended).toBe(true);
    expect(progress.written).toBe(bytes.length);
    expect(Buffer.compare(readFileSync(to.path), Buffer.from(bytes))).toBe(0);
  });
});
