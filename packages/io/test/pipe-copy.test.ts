// The pipe copier's worker, on a real FIFO and a real file in a temp folder: what it copies, how
// often it wakes a waiting reader, and that a worker that dies still ends the copy's progress.

import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CopyProgress, startPipeCopier } from '../src/node/pipe-copy.js';

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

/** The count of progress updates (cell 2 of CopyProgress's shared memory). */
const updates = (progress: CopyProgress): bigint => new BigInt64Array(progress.shared)[2] as bigint;

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
    expect(updates(progress)).toBeGreaterThanOrEqual(6n);
    expect(updates(progress)).toBeLessThanOrEqual(7n);
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
