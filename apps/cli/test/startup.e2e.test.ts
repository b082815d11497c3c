// What a run loads before it reads its first byte. A plain file-to-file gather must not load the
// zip libraries (only an .npz needs them, from dist/yauzl.cjs and dist/yazl.cjs), node:assert,
// node:child_process (only a relaunch with huge pages needs it), node:worker_threads (only a
// copy from a pipe), nor Node's stream classes and what loads them (node:stream, node:net,
// node:zlib, node:crypto; the standard streams are set up on first use) or node:fs/promises.
// Seen in a real spawned run, through a preload script that records at exit node's built-in
// modules and the CommonJS files that were required.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir, tensorops } from './helpers.js';

const fx = (name: string): string => join(REPO, 'fixtures', 'cli', `${name}.npy`);

const RECORD_LOADED = `process.on('exit', () => {
  const builtins = process.moduleLoadList
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
  const files = Object.keys(require.cache);
  require('node:fs').writeFileSync(process.env.LOADED_OUT, JSON.stringify({ builtins, files }));
});`;

interface Loaded {
  readonly builtins: string[];
  /** Base names of the CommonJS files required. */
  readonly files: string[];
}

/** Runs the bin with `args` in `dir` and returns what it loaded. */
function loadedBy(dir: string, args: string[]): Loaded {
  const preload = join(dir, 'record-loaded.cjs');
  writeFileSync(preload, RECORD_LOADED);
  const out = join(dir, 'loaded.json');
  const r = tensorops(args, {
    cwd: dir,
    nodeArgs: ['--require', preload],
    env: { LOADED_OUT: out, TENSOROPS_CACHE_DIR: join(dir, 'cache') },
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const loaded = JSON.parse(readFileSync(out, 'utf8')) as Loaded;
  return { ...loaded, files: loaded.files.map((f) => f.slice(f.lastIndexOf('/') + 1)) };
}

describe('start-up: what a run loads', () => {
  it('a small .npy gather to a file loads no zip library, assert, child_process, worker_threads, stream or fs/promises', () => {
    const dir = tempDir();
    const args = ['gather', fx('data'), fx('idx'), '--axis', '1', '-o', join(dir, 'out.npy')];
    // The first run writes the code cache, the second uses it: both load the same.
    for (const run of [1, 2]) {
      const loaded = loadedBy(dir, args);
      expect(loaded.files, `run ${run}`).toContain(BIN.slice(BIN.lastIndexOf('/') + 1));
      expect(loaded.files, `run ${run}`).not.toContain('yauzl.cjs');
      expect(loaded.files, `run ${run}`).not.toContain('yazl.cjs');
      expect(loaded.builtins, `run ${run}`).not.toContain('assert');
      expect(loaded.builtins, `run ${run}`).not.toContain('child_process');
      expect(loaded.builtins, `run ${run}`).not.toContain('worker_threads');
      for (const heavy of ['stream', 'net', 'zlib', 'crypto', 'fs/promises']) {
        expect(loaded.builtins, `run ${run}`).not.toContain(heavy);
      }
    }
  });

  it('writing an .npz loads yazl, reading one loads yauzl', () => {
    const dir = tempDir();
    const npz = join(dir, 'out.npz');
    const args = ['gather', fx('data'), fx('idx'), '--axis', '1', '-o', `${npz}:g`];
    const written = loadedBy(dir, args);
    expect(written.files).toContain('yazl.cjs');
    const read = loadedBy(dir, ['inspect', npz]);
    expect(read.files).toContain('yauzl.cjs');
  });
});
