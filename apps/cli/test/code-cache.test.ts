// The compiled-code cache of the bin: where it lives, what makes an entry valid, and that every
// way it can fail (no cache folder, read-only HOME, full disk, corrupt or foreign file) leaves the
// run exactly as it is without a cache.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  cacheDirectory,
  cacheFileName,
  cacheFileSize,
  cacheKey,
  MAX_CACHE_BYTES,
  MAX_CACHE_ENTRIES,
  readCodeCache,
  writeCodeCache,
} from '../src/launch/code-cache.js';
import { BIN, tempDir, tensorops } from './helpers.js';

const MAIN = fileURLToPath(new URL('../dist/tensorops-main.cjs', import.meta.url));
const VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;

/** A one-dimensional .npy file of float32 or int64 values. */
function smallNpy(dir: string, name: string, dtype: '<f4' | '<i8', values: number[]): string {
  const header = `{'descr': '${dtype}', 'fortran_order': False, 'shape': (${values.length},), }`;
  const padded = header.padEnd(128 - 10 - 1, ' ');
  const head = Buffer.concat([
    Buffer.from([0x93]),
    Buffer.from('NUMPY'),
    Buffer.from([1, 0, padded.length + 1, 0]),
    Buffer.from(`${padded}\n`),
  ]);
  const data =
    dtype === '<f4'
      ? Buffer.from(new Float32Array(values).buffer)
      : Buffer.from(new BigInt64Array(values.map(BigInt)).buffer);
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([head, data]));
  return path;
}

/** A file of `size` bytes that takes no room on disk (a hole). */
function sparseFile(path: string, size: number): void {
  const fd = openSync(path, 'w');
  ftruncateSync(fd, size);
  closeSync(fd);
}

/** The key the bin computes when spawned as `node BIN` with no NODE_OPTIONS. */
const childKey = (): string =>
  cacheKey({ version: VERSION, bundle: MAIN, execArgv: [], nodeOptions: undefined });

describe('cacheDirectory', () => {
  it('prefers TENSOROPS_CACHE_DIR, then XDG_CACHE_HOME, then HOME; empty turns it off', () => {
    const all = { TENSOROPS_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' };
    expect(cacheDirectory(all)).toBe('/c');
    expect(cacheDirectory({ ...all, TENSOROPS_CACHE_DIR: undefined })).toBe('/x/tensorops');
    expect(cacheDirectory({ HOME: '/h' })).toBe('/h/.cache/tensorops');
    expect(cacheDirectory({ ...all, TENSOROPS_CACHE_DIR: '' })).toBeUndefined();
    expect(cacheDirectory({})).toBeUndefined();
  });
});

describe('cache files', () => {
  const payload = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) & 255));

  it('reads back what was written under the same key, and nothing under another', () => {
    const file = join(tempDir(), 'sub', 'entry.v8cache');
    expect(writeCodeCache(file, 'key one', payload)).toBe(true);
    expect(readCodeCache(file, 'key one')?.equals(payload)).toBe(true);
    expect(readCodeCache(file, 'key two')).toBeUndefined();
    expect(readdirSync(join(file, '..'))).toEqual(['entry.v8cache']);
  });

  it('reads into the buffer it is given when the file fits, into its own when not', () => {
    const file = join(tempDir(), 'entry.v8cache');
    writeCodeCache(file, 'k', payload);
    const size = readFileSync(file).length;
    const roomy = Buffer.alloc(size + 10, 0xee);
    const inRoomy = readCodeCache(file, 'k', roomy);
    expect(inRoomy?.equals(payload)).toBe(true);
    expect(inRoomy?.buffer).toBe(roomy.buffer);
    expect(roomy.subarray(size)).toEqual(Buffer.alloc(10, 0xee));
    const small = Buffer.alloc(size - 1, 0xee);
    const inOwn = readCodeCache(file, 'k', small);
    expect(inOwn?.equals(payload)).toBe(true);
    expect(inOwn?.buffer).not.toBe(small.buffer);
    expect(small).toEqual(Buffer.alloc(size - 1, 0xee));
  });

  it('refuses a truncated file, a flipped payload byte, a foreign file and a missing one', () => {
    const dir = tempDir();
    const file = join(dir, 'entry.v8cache');
    writeCodeCache(file, 'k', payload);
    const good = readFileSync(file);
    writeFileSync(file, good.subarray(0, good.length - 1));
    expect(readCodeCache(file, 'k')).toBeUndefined();
    const flipped = Buffer.from(good);
    flipped[flipped.length - 100] = (flipped[flipped.length - 100] as number) ^ 1;
    writeFileSync(file, flipped);
    expect(readCodeCache(file, 'k')).toBeUndefined();
    writeFileSync(file, Buffer.from('not a cache file at all'));
    expect(readCodeCache(file, 'k')).toBeUndefined();
    expect(readCodeCache(join(dir, 'absent'), 'k')).toBeUndefined();
  });

  it.skipIf(process.getuid?.() !== 0)(
    'a full disk: the write fails quietly and leaves no temp file',
    () => {
      const dir = tempDir();
      const file = join(dir, 'entry.v8cache');
      // The temp file's name is the writer's; a private full device (char 1,7) stands in its place.
      const temp = `${file}.${process.pid}.tmp`;
      expect(spawnSync('mknod', [temp, 'c', '1', '7']).status).toBe(0);
      expect(writeCodeCache(file, 'k', payload)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it(`keeps the ${MAX_CACHE_ENTRIES} most recently written entries, the new one always`, () => {
    const dir = tempDir();
    const names = Array.from({ length: 6 }, (_, i) => `tensorops-0.0.${i}-node0-x64-0.v8cache`);
    names.forEach((name, i) => {
      writeCodeCache(join(dir, name), 'k', payload);
      // Dated ahead of the clock, newest first: the entry written below is older than all of
      // them, and stays only because it is this run's.
      const when = new Date(Date.UTC(2099, 0, 10 - i));
      utimesSync(join(dir, name), when, when);
    });
    writeFileSync(join(dir, 'unrelated.txt'), 'kept');
    const fresh = 'tensorops-9.9.9-node0-x64-0.v8cache';
    expect(writeCodeCache(join(dir, fresh), 'k', payload)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(
      [...names.slice(0, MAX_CACHE_ENTRIES - 1), fresh, 'unrelated.txt'].sort(),
    );
  });

  it('an entry that is not a regular file, or is far too large, has no size to read', () => {
    const dir = tempDir();
    const file = join(dir, 'entry.v8cache');
    writeCodeCache(file, 'k', payload);
    expect(cacheFileSize(file)).toBe(statSync(file).size);
    sparseFile(file, MAX_CACHE_BYTES + 1);
    expect(cacheFileSize(file)).toBe(0);
    expect(readCodeCache(file, 'k')).toBeUndefined();
    const folder = join(dir, 'folder.v8cache');
    mkdirSync(folder);
    expect(cacheFileSize(folder)).toBe(0);
    expect(readCodeCache(folder, 'k')).toBeUndefined();
    expect(cacheFileSize(join(dir, 'absent'))).toBe(0);
  });

  it('a folder that cannot be made: the write fails quietly', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plain-file'), 'x');
    expect(writeCodeCache(join(dir, 'plain-file', 'cache', 'entry'), 'k', payload)).toBe(false);
    expect(readdirSync(dir)).toEqual(['plain-file']);
  });
});

describe('the bin with its cache', () => {
  const gatherArgs = (dir: string) => [
    'gather',
    smallNpy(dir, 'd.npy', '<f4', [0, 1, 2, 3, 4, 5]),
    smallNpy(dir, 'i.npy', '<i8', [5, 0, 3]),
  ];

  it('writes one entry on the first run, uses it unchanged after, and gives the same bytes', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const env = { TENSOROPS_CACHE_DIR: cache };
    const plain = tensorops(gatherArgs(dir), { env: { TENSOROPS_CACHE_DIR: '' } });
    expect(plain.status).toBe(0);
    const first = tensorops(gatherArgs(dir), { env });
    expect(first.stderr).toBe('');
    expect(Buffer.compare(first.stdout, plain.stdout)).toBe(0);
    const files = readdirSync(cache);
    expect(files).toEqual([cacheFileName(VERSION, childKey())]);
    const entry = join(cache, files[0] as string);
    expect(readCodeCache(entry, childKey())?.length).toBeGreaterThan(1000);
    const written = statSync(entry).mtimeMs;
    const second = tensorops(gatherArgs(dir), { env });
    expect(second.stderr).toBe('');
    expect(Buffer.compare(second.stdout, plain.stdout)).toBe(0);
    expect(statSync(entry).mtimeMs).toBe(written);
  });

  it('a corrupt entry or one V8 rejects (another source) is replaced, and the run is unchanged', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const entry = join(cache, cacheFileName(VERSION, childKey()));
    const plain = tensorops(gatherArgs(dir), { env: { TENSOROPS_CACHE_DIR: '' } });
    const other = new Script('(function () { return 42; })').createCachedData();
    for (const damage of [
      () => writeFileSync(entry, Buffer.alloc(5000, 0xa5)),
      () => writeCodeCache(entry, childKey(), other),
    ]) {
      writeCodeCache(entry, 'placeholder', Buffer.alloc(1));
      damage();
      const r = tensorops(gatherArgs(dir), { env: { TENSOROPS_CACHE_DIR: cache } });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(Buffer.compare(r.stdout, plain.stdout)).toBe(0);
      const now = readCodeCache(entry, childKey());
      expect(now?.length).toBeGreaterThan(1000);
      expect(now?.equals(other)).toBe(false);
    }
  });

  it('an entry that is a FIFO, a folder or a 5 GB file is ignored: the run is unchanged, never held', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    mkdirSync(cache);
    const entry = join(cache, cacheFileName(VERSION, childKey()));
    const plain = tensorops(gatherArgs(dir), { env: { TENSOROPS_CACHE_DIR: '' } });
    const places: [string, () => void][] = [
      ['a FIFO', () => expect(spawnSync('mkfifo', [entry]).status).toBe(0)],
      ['a folder', () => mkdirSync(entry)],
      ['a 5 GB file', () => sparseFile(entry, 5 * 2 ** 30)],
    ];
    for (const [what, place] of places) {
      place();
      const before = lstatSync(entry);
      const placed = [before.isFIFO(), before.isDirectory(), before.size];
      const r = tensorops(gatherArgs(dir), {
        env: { TENSOROPS_CACHE_DIR: cache },
        timeoutMs: 20_000,
      });
      expect(r.signal, what).toBeNull();
      expect(r.stderr, what).toBe('');
      expect(r.status, what).toBe(0);
      expect(Buffer.compare(r.stdout, plain.stdout), what).toBe(0);
      if (what === 'a folder') {
        const after = lstatSync(entry);
        expect([after.isFIFO(), after.isDirectory(), after.size], what).toEqual(placed);
      } else {
        // What is not a folder is replaced by a valid entry, which the next run uses.
        expect(readCodeCache(entry, childKey())?.length).toBeGreaterThan(1000);
      }
      rmSync(entry, { recursive: true, force: true });
    }
  });

  it('without WebAssembly (node --jitless) the run is unchanged and keeps no cache', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const plain = tensorops(gatherArgs(dir), { env: { TENSOROPS_CACHE_DIR: '' } });
    // Node itself warns that --jitless turns WebAssembly off; tensorops adds nothing to that.
    const nodeSays = spawnSync(process.execPath, ['--jitless', '-e', '0']).stderr.toString();
    for (const run of [1, 2]) {
      const r = tensorops(gatherArgs(dir), {
        env: { TENSOROPS_CACHE_DIR: cache },
        nodeArgs: ['--jitless'],
      });
      expect(r.stderr, `run ${run}`).toBe(nodeSays);
      expect(r.status, `run ${run}`).toBe(0);
      expect(Buffer.compare(r.stdout, plain.stdout), `run ${run}`).toBe(0);
    }
    const written = existsSync(cache) ? readdirSync(cache, { recursive: true }).map(String) : [];
    expect(written.filter((name) => name.endsWith('.v8cache'))).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'a read-only HOME (nobody, HOME owned by root): the run works and writes nothing',
    () => {
      const dir = tempDir();
      chmodSync(dir, 0o755);
      const home = join(dir, 'home');
      spawnSync('mkdir', ['-m', '755', home]);
      const args = gatherArgs(dir);
      const r = spawnSync(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: home },
        uid: 65534,
        gid: 65534,
      });
      expect(r.stderr.toString()).toBe('');
      expect(r.status).toBe(0);
      const plain = tensorops(args, { env: { TENSOROPS_CACHE_DIR: '' } });
      expect(Buffer.compare(r.stdout, plain.stdout)).toBe(0);
      expect(readdirSync(home)).toEqual([]);
    },
  );
});
