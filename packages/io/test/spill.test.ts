// A .npy on a real pipe (a `cat` child), gathered through gatherFromPipe: copied to an unlinked
// temp file when the output is large next to the data, swept as it passes when it is small. The
// temp folder is the test's own, and nothing is left in it.
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTensor, gather, type Tensor, tensorFrom } from '@tensorops/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canCopyToFile } from '../src/fast/spill/copy-to-file.js';
import type { NpyOnStream } from '../src/file/gather-file/stream-sweep.js';
import { encodeNpy } from '../src/index.js';
import { collectStream, gatherFromPipe, openNpyStream } from '../src/node/index.js';

let dir: string;
let scratch: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-spill-'));
  scratch = join(dir, 'tmp');
  mkdirSync(scratch);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The bytes of `path` through a pipe from a `cat` child, cut to `limit` bytes if given. */
function piped(bytes: Uint8Array, limit = bytes.length) {
  const path = join(dir, 'data.npy');
  writeFileSync(path, bytes.subarray(0, limit));
  const child = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'inherit'] });
  return child.stdout as AsyncIterable<Uint8Array>;
}

/**
 * The bytes of `path` through a FIFO that a `cat` child writes, opened here in blocking mode: a
 * descriptor, as the CLI hands over a piped stdin (read by read(2), copied in a worker thread).
 */
function pipedDescriptor(bytes: Uint8Array, limit = bytes.length): number {
  const path = join(dir, 'data.npy');
  writeFileSync(path, bytes.subarray(0, limit));
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  spawn('sh', ['-c', 'cat "$0" > "$1"', path, fifo], { stdio: 'ignore' });
  const fd = openSync(fifo, 'r');
  descriptors.push(fd);
  return fd;
}
/**
 * A descriptor like pipedDescriptor's, whose writer sends the first `head` bytes, then waits for
 * the file `go` in the test's folder before it sends the rest.
 */
function heldDescriptor(bytes: Uint8Array, head: number): { fd: number; go: () => void } {
  const path = join(dir, 'data.npy');
  writeFileSync(path, bytes);
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const go = join(dir, 'go');
  const script =
    'head -c "$3" "$0"; while [ ! -e "$2" ]; do sleep 0.01; done; tail -c +"$(($3 + 1))" "$0"';
  spawn('sh', ['-c', `{ ${script}; } > "$1"`, path, fifo, go, String(head)], { stdio: 'ignore' });
  const fd = openSync(fifo, 'r');
  descriptors.push(fd);
  return { fd, go: () => writeFileSync(go, '') };
}
const descriptors: number[] = [];
afterEach(() => {
  for (const fd of descriptors.splice(0)) closeSync(fd);
});

/**
 * A new folder under `base` whose path takes 4080 characters: it exists, but a temp file's name
 * in it makes a path longer than the 4095 the kernel takes (ENAMETOOLONG).
 */
function longFolder(base: string): string {
  let path = base;
  while (4080 - path.length > 256) path = join(path, 'd'.repeat(200));
  path = join(path, 'd'.repeat(4080 - path.length - 1));
  mkdirSync(path, { recursive: true });
  expect(path.length).toBe(4080);
  return path;
}

/** Every row of table(4096) once, in a scrambled order: an output as large as the data. */
function everyRowScrambled(): Tensor {
  return tensorFrom(
    'int64',
    [4096],
    Array.from({ length: 4096 }, (_, i) => BigInt((i * 2654435761) % 4096)),
  );
}

/** [rows, 64] float32 of random bit patterns (NaN payloads and -0 among them). */
function table(rows: number): Tensor {
  const t = createTensor('float32', [rows, 64]);
  let s = 0x9e3779b9;
  for (let i = 0; i < t.data.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    t.data[i] = s & 255;
  }
  return t;
}

/** Gathers through gatherFromPipe to the end, closing its temp file whatever happens. */
async function gatherAll(npy: NpyOnStream, ids: Tensor): Promise<void> {
  const { stream, close } = await gatherFromPipe(npy, ids, {}, scratch);
  try {
    await collectStream(stream);
  } finally {
    await close();
  }
}

/**
 * Gathers `ids` from `data`, the .npy on `npy`, with `folder` for a temp copy: the pipe is swept
 * as it passes, and the bytes are the gather's.
 */
async function expectSwept(npy: NpyOnStream, data: Tensor, ids: Tensor, folder: string) {
  const { stream, close } = await gatherFromPipe(npy, ids, {}, folder);
  expect(stream.mode).toBe('stream-sweep');
  const got = await collectStream(stream);
  await close();
  await npy.close();
  expect(Buffer.from(got.data).equals(Buffer.from(gather(data, ids).data))).toBe(true);
}

describe('gatherFromPipe', () => {
  it('copies the pipe to an unlinked temp file when every row is picked, and gathers the right bytes', async () => {
    const data = table(4096);
    const ids = everyRowScrambled();
    const npy = await openNpyStream(piped(encodeNpy(data)), 'stdin');
    const { stream, close } = await gatherFromPipe(npy, ids, {}, scratch);
    expect(stream.mode).not.toBe('stream-sweep');
    expect(readdirSync(scratch)).toEqual([]);
    const got = await collectStream(stream);
    await close();
    await npy.close();
    expect(Buffer.from(got.data).equals(Buffer.from(gather(data, ids).data))).toBe(true);
  });

  it('copies a pipe given as a descriptor (in a worker thread) and gathers the right bytes', async () => {
    const data = table(4096);
    const ids = everyRowScrambled();
    const npy = await openNpyStream(pipedDescriptor(encodeNpy(data)), 'stdin');
    expect(canCopyToFile(npy)).toBe(true);
    const { stream, close } = await gatherFromPipe(npy, ids, {}, scratch);
    expect(stream.mode).not.toBe('stream-sweep');
    expect(readdirSync(scratch)).toEqual([]);
    const got = await collectStream(stream);
    await close();
    expect(Buffer.from(got.data).equals(Buffer.from(gather(data, ids).data))).toBe(true);
  });

  it('cuts its temp copy short as the last of several passes goes, before the gather ends', async () => {
    const data = table(4096); // 256-byte rows
    const ids = everyRowScrambled();
    const bytes = encodeNpy(data);
    const headerBytes = bytes.length - data.data.byteLength;
    const npy = await openNpyStream(pipedDescriptor(bytes), 'stdin');
    // Pass chunks of 64 KiB, four per pass: four passes over the 1 MiB of data.
    const { stream, close } = await gatherFromPipe(npy, ids, { chunkBytes: 16 << 10 }, scratch);
    expect(stream.mode).toBe('passes');
    // The temp copy: the one descriptor open on a file of the test's temp folder, which the
    // copy writes and the gather reads.
    const copies = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(join(scratch, '.tensorops-'));
      } catch {
        return false; // the listing's own descriptor, closed by now
      }
    });
    expect(copies).toHaveLength(1);
    const copy = Number(copies[0]);
    const sizes: number[] = []; // of the temp copy, as each output chunk is handed out
    const parts: Uint8Array[] = [];
    try {
      for await (const chunk of stream.chunks({ reuse: true })) {
        parts.push(new Uint8Array(chunk));
        sizes.push(fstatSync(copy).size);
      }
    } finally {
      await close();
    }
    expect(Buffer.concat(parts).equals(Buffer.from(gather(data, ids).data))).toBe(true);
    // Whole for the chunks of the first three passes; for the last pass's four, down to the
    // header and the one row past the first window (every window holds rows of the last pass),
    // which the window before it would reach.
    const whole = Array.from({ length: 12 }, () => bytes.length);
    const cut = Array.from({ length: 4 }, () => headerBytes + 256);
    expect(sizes).toEqual([...whole, ...cut]);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('starts the gather while the copy is still under way; its reads wait for the bytes they need', async () => {
    const data = table(4096);
    const ids = everyRowScrambled();
    const bytes = encodeNpy(data);
    const { fd, go } = heldDescriptor(bytes, bytes.length >> 1);
    const npy = await openNpyStream(fd, 'stdin');
    // Resolves with half of the data still held back by the writer: nothing waits for the copy.
    const { stream, close } = await gatherFromPipe(npy, ids, {}, scratch);
    expect(stream.mode).not.toBe('stream-sweep');
    go();
    const got = await collectStream(stream);
    await close();
    expect(Buffer.from(got.data).equals(Buffer.from(gather(data, ids).data))).toBe(true);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('a descriptor that ends early fails the gather even where no index reaches the missing rows', async () => {
    const bytes = encodeNpy(table(4096));
    const ids = tensorFrom(
      'int32',
      [4096],
      Array.from({ length: 4096 }, (_, i) => i % 100),
    );
    const npy = await openNpyStream(pipedDescriptor(bytes, bytes.length - 5000), 'stdin');
    await expect(gatherAll(npy, ids)).rejects.toThrow(
      /^stdin: data truncated: the header declares/,
    );
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('a descriptor that ends before its declared data is an error naming stdin, and leaves nothing', async () => {
    const bytes = encodeNpy(table(4096));
    const ids = tensorFrom(
      'int32',
      [4096],
      Array.from({ length: 4096 }, (_, i) => i),
    );
    const npy = await openNpyStream(pipedDescriptor(bytes, bytes.length - 5000), 'stdin');
    await expect(gatherAll(npy, ids)).rejects.toThrow(/^stdin: .*truncated/);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('sweeps the pipe as it passes when a few rows are picked', async () => {
    const data = table(4096);
    const ids = tensorFrom('int32', [3], [4095, 0, -7]);
    await expectSwept(await openNpyStream(piped(encodeNpy(data)), 'stdin'), data, ids, scratch);
  });

  it('sweeps the pipe when no temp file can be made in the folder: a file, a path too long', async () => {
    const data = table(4096);
    const ids = everyRowScrambled();
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    for (const folder of [file, longFolder(join(dir, 'long'))]) {
      for (const source of [piped, pipedDescriptor]) {
        await expectSwept(await openNpyStream(source(encodeNpy(data)), 'stdin'), data, ids, folder);
        descriptors.splice(0).forEach(closeSync);
        rmSync(join(dir, 'fifo'), { force: true });
      }
    }
    expect(readFileSync(file, 'utf8')).toBe('not a folder');
  });

  it('a pipe that ends before its declared data is an error naming stdin, and leaves nothing', async () => {
    const bytes = encodeNpy(table(4096));
    const ids = tensorFrom(
      'int32',
      [4096],
      Array.from({ length: 4096 }, (_, i) => 4095 - i),
    );
    const npy = await openNpyStream(piped(bytes, bytes.length - 5000), 'stdin');
    await expect(gatherAll(npy, ids)).rejects.toThrow(/^stdin: .*truncated/);
    await npy.close();
    expect(readdirSync(scratch)).toEqual([]);
  });
});
