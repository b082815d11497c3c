import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { BIN, listDir, REPO, tempDir, tensorops } from './helpers.js';

// Every special file here is a private one made in the test's temp dir; the machine's own /dev
// entries are never a target.

const DATA = join(REPO, 'fixtures/cli/data.npy');
const IDX = join(REPO, 'fixtures/cli/idx.npy');
const GATHER = ['gather', DATA, IDX, '--axis', '1'];
const EXPECTED = readFileSync(join(REPO, 'fixtures/cli/take_axis1.npy'));
const isRoot = process.getuid?.() === 0;
const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;
const cli = `${quote(process.execPath)} ${quote(BIN)} ${GATHER.map(quote).join(' ')}`;

/** Runs a bash command line in `dir`, where the word TENSOROPS stands for the gather command. */
function bash(
  dir: string,
  script: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', script.replace('TENSOROPS', () => cli)], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('-o targets: regular files are replaced atomically, anything else is written in place', () => {
  it.runIf(isRoot)('a character device stays a device (a private copy of the null device)', () => {
    const dir = tempDir();
    const device = join(dir, 'null');
    execFileSync('mknod', [device, 'c', '1', '3']);
    const r = tensorops([...GATHER, '-o', device]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
    expect(listDir(dir)).toEqual(['null']);
  });

  it('a FIFO is opened and its reader gets every byte', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo]);
    const received: Buffer[] = [];
    reader.stdout.on('data', (b: Buffer) => received.push(b));
    const done = new Promise((resolve) => reader.on('close', resolve));
    const r = tensorops([...GATHER, '-o', fifo]);
    await done;
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(Buffer.concat(received).equals(EXPECTED)).toBe(true);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(listDir(dir)).toEqual(['pipe']);
  });

  it('a listening Unix socket gets the bytes over a connection', async () => {
    const dir = tempDir();
    const path = join(dir, 'sock');
    const received: Buffer[] = [];
    const server = createServer((c) => c.on('data', (b: Buffer) => received.push(b)));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const child = spawn(process.execPath, [BIN, ...GATHER, '-o', path]);
    const status = await new Promise((resolve) => child.on('close', resolve));
    expect(lstatSync(path).isSocket()).toBe(true);
    await new Promise((resolve) => server.close(resolve));
    expect(status).toBe(0);
    expect(Buffer.concat(received).equals(EXPECTED)).toBe(true);
  });

  it('a symlink chain is followed: the final file gets the data, both links stay links', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'real.npy'), 'old');
    symlinkSync('real.npy', join(dir, 'link1'));
    symlinkSync(join(dir, 'link1'), join(dir, 'link2'));
    const r = tensorops([...GATHER, '-o', join(dir, 'link2')]);
    expect(r.status).toBe(0);
    expect(readlinkSync(join(dir, 'link2'))).toBe(join(dir, 'link1'));
    expect(readlinkSync(join(dir, 'link1'))).toBe('real.npy');
    expect(readFileSync(join(dir, 'real.npy')).equals(EXPECTED)).toBe(true);
    expect(listDir(dir)).toEqual(['link1', 'link2', 'real.npy']);
  });

  it('a dangling symlink names the file to create', () => {
    const dir = tempDir();
    symlinkSync('made.npy', join(dir, 'link'));
    const r = tensorops([...GATHER, '-o', join(dir, 'link')]);
    expect(r.status).toBe(0);
    expect(lstatSync(join(dir, 'link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'made.npy')).equals(EXPECTED)).toBe(true);
  });

  it('a symlink loop is one error line, exit 1', () => {
    const dir = tempDir();
    symlinkSync('b', join(dir, 'a'));
    symlinkSync('a', join(dir, 'b'));
    const r = tensorops([...GATHER, '-o', join(dir, 'a')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^tensorops: error: .*\/a: cannot write: too many levels of symbolic links\n$/,
    );
  });

  it('/dev/fd/N of a pipe is written through the descriptor', () => {
    const dir = tempDir();
    const r = bash(dir, 'TENSOROPS -o /dev/fd/3 3>&1 1>stdout.txt | cat > got.npy');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'got.npy')).equals(EXPECTED)).toBe(true);
    expect(readFileSync(join(dir, 'stdout.txt'), 'utf8')).toBe('');
  });

  it('process substitution >(cmd) gets the bytes', () => {
    const dir = tempDir();
    const r = bash(dir, 'TENSOROPS -o >(cat > got.npy); wait $!');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'got.npy')).equals(EXPECTED)).toBe(true);
  });

  it('-o /dev/stdout writes to the redirected file in place, not over it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'log'), 'kept\n');
    const inode = statSync(join(dir, 'log')).ino;
    const r = bash(dir, 'TENSOROPS -o /dev/stdout >> log');
    expect(r.status).toBe(0);
    expect(statSync(join(dir, 'log')).ino).toBe(inode);
    expect(
      readFileSync(join(dir, 'log')).equals(Buffer.concat([Buffer.from('kept\n'), EXPECTED])),
    ).toBe(true);
  });

  it('-o - is standard output', () => {
    const r = tensorops([...GATHER, '-o', '-']);
    expect(r.status).toBe(0);
    expect(r.stdout.equals(EXPECTED)).toBe(true);
  });

  it('a directory target is one error line and nothing is written', () => {
    const dir = tempDir();
    const r = tensorops([...GATHER, '-o', dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`tensorops: error: ${dir}: cannot write: is a directory\n`);
    expect(listDir(dir)).toEqual([]);
  });

  // /proc makes no new files, so these fail before any byte could reach the kernel's own files.
  it('a file in /proc is refused with the true reason: its folder takes no new files', () => {
    const before = readFileSync('/proc/version', 'utf8');
    for (const target of ['/proc/version', '/proc/tensorops-out.npy']) {
      const r = tensorops([...GATHER, '-o', target]);
      expect(r.stderr).toBe(
        `tensorops: error: ${target}: cannot write: its folder /proc takes no new files (an output is written to a new file beside its path, then renamed)\n`,
      );
      expect(r.status).toBe(1);
      expect(r.stdout.length).toBe(0);
    }
    expect(readFileSync('/proc/version', 'utf8')).toBe(before);
    expect(existsSync('/proc/tensorops-out.npy')).toBe(false);
    // A folder that is missing keeps the plain reason.
    const missing = join(tempDir(), 'no-such-folder', 'out.npy');
    expect(tensorops([...GATHER, '-o', missing]).stderr).toBe(
      `tensorops: error: ${missing}: cannot write: no such file or directory\n`,
    );
  });

  it('a target ending in / or /. names a folder: refused, nothing created or replaced', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'f.npy'), 'kept');
    symlinkSync('new/', join(dir, 'link'));
    const folder = "cannot write: ends with '/', so it names a folder, not a file";
    for (const [target, reason] of [
      ['new/', folder],
      ['new/.', "cannot write: ends with '.', a folder, not a file"],
      ['./', folder],
      ['f.npy/', folder],
      ['link', folder],
    ] as const) {
      const r = tensorops([...GATHER, '-o', target], { cwd: dir });
      expect(r.stderr).toBe(`tensorops: error: ${target}: ${reason}\n`);
      expect(r.status).toBe(1);
      expect(r.stdout.length).toBe(0);
      expect(listDir(dir)).toEqual(['f.npy', 'link']);
      expect(readFileSync(join(dir, 'f.npy'), 'utf8')).toBe('kept');
    }
  });
});

describe('-o target permissions, as cp', () => {
  it('a replaced file keeps its mode (0640 stays 0640, 0444 stays 0444 for root)', () => {
    const dir = tempDir();
    const path = join(dir, 'out.npy');
    writeFileSync(path, 'old');
    chmodSync(path, 0o640);
    expect(tensorops([...GATHER, '-o', path]).status).toBe(0);
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    expect(readFileSync(path).equals(EXPECTED)).toBe(true);
    if (isRoot) {
      chmodSync(path, 0o444);
      expect(tensorops([...GATHER, '-o', path]).status).toBe(0);
      expect(statSync(path).mode & 0o7777).toBe(0o444);
    }
  });

  it.runIf(isRoot)(
    'a user who may not write the file is refused, even in a world-writable folder',
    () => {
      const dir = tempDir();
      chmodSync(dir, 0o1777);
      const path = join(dir, 'out.npy');
      writeFileSync(path, 'root owns this');
      chmodSync(path, 0o644);
      chownSync(path, 0, 0);
      const r = spawnSync(process.execPath, [BIN, ...GATHER, '-o', path], {
        uid: 65534,
        gid: 65534,
        encoding: 'utf8',
      });
      expect(r.stderr).toBe(`tensorops: error: ${path}: cannot write: permission denied\n`);
      expect(r.status).toBe(1);
      expect(readFileSync(path, 'utf8')).toBe('root owns this');
      expect(listDir(dir)).toEqual(['out.npy']);
      expect(existsSync(path)).toBe(true);
    },
  );
});

describe('-o FILE.npz:NAME over a file holding other tensors', () => {
  it('is refused without --force (exit 2, the file unchanged); --force replaces the file', async () => {
    const dir = tempDir();
    for (const ext of ['npz', 'safetensors']) {
      const path = join(dir, `multi.${ext}`);
      await writeTensorsFile(path, [
        { name: 'rows', data: tensorFrom('int8', [1], [1]) },
        { name: 'keep', data: tensorFrom('int8', [1], [2]) },
      ]);
      const before = readFileSync(path);
      const r = tensorops([...GATHER, '-o', `${path}:rows`]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(
        `tensorops: error: ${path} holds other tensors ('keep') and writing ${path}:rows replaces the whole file; pass --force to replace it, or write to another file\n`,
      );
      expect(readFileSync(path).equals(before)).toBe(true);
      expect(tensorops([...GATHER, '-o', `${path}:rows`, '--force']).status).toBe(0);
      const listed = tensorops(['inspect', path, '--json']);
      const names = JSON.parse(listed.stdout.toString()).tensors.map(
        (t: { name: string }) => t.name,
      );
      expect(names).toEqual(['rows']);
      // Holding only that tensor, it is simply replaced.
      expect(tensorops([...GATHER, '-o', `${path}:rows`]).status).toBe(0);
    }
    expect(listDir(dir)).toEqual(['multi.npz', 'multi.safetensors']);
  });
});

describe('results numpy cannot read', () => {
  it('a result of more than 64 dimensions is refused for .npy, written as JSON', async () => {
    const dir = tempDir();
    const idx = join(dir, 'idx.safetensors');
    await writeTensorsFile(idx, [
      { name: 'i', data: tensorFrom('int64', Array(65).fill(1), [1n]) },
    ]);
    const data = join(REPO, 'fixtures/text/int8.npy'); // [1, 3]
    const out = join(dir, 'deep.npy');
    const r = tensorops(['gather', data, idx, '--axis', '1', '-o', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `tensorops: error: ${out}: the result has 66 dimensions and numpy reads .npy arrays of at most 64\n`,
    );
    expect(listDir(dir)).toEqual(['idx.safetensors']);
    const json = tensorops(['gather', data, idx, '--axis', '1', '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout.toString()).shape).toHaveLength(66);
  });
});
