// Large gathers start the CLI again under glibc's huge-page tunable: which runs qualify, that the
// relaunched CLI really runs with the tunable, and that it behaves exactly as the CLI run directly
// (output bytes, exit codes, error lines, stdin, signals and temp files).
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { encodeNpyHeader } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../src/args/parser.js';
import { DATA_BYTES, hugePagesWork, INDEX_BYTES, isLargeGather } from '../src/launch/huge-pages.js';
import { BIN, REPO, tempDir, tensorops } from './helpers.js';

const DATA = join(REPO, 'fixtures/cli/data.npy');
const IDX = join(REPO, 'fixtures/cli/idx.npy');
const FORCED = { TENSOROPS_HUGE_PAGES: '1' };
const OFF = { TENSOROPS_HUGE_PAGES: '0' };

/** A sparse file of `bytes` bytes: its size is what the CLI looks at. */
function sized(dir: string, name: string, bytes: number): string {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return path;
}

/** The operands whose sizes decide a relaunch, as the CLI parses `argv` (undefined: never). */
async function wholeTensorInputs(argv: readonly string[]) {
  const quiet = { write: () => true };
  const io = { stdin: undefined as never, stdout: quiet, stderr: quiet, env: {} };
  const parsed = await parseCommandLine(argv, io, '0.0.0');
  return parsed.kind === 'run' ? parsed.spec.wholeTensorInputs?.(parsed.args) : undefined;
}

describe('which runs start again with huge pages', () => {
  it('gather-nd whose data and indices are both large, by file size', () => {
    const dir = tempDir();
    const data = sized(dir, 'data.npy', DATA_BYTES);
    const ids = sized(dir, 'ids.npy', INDEX_BYTES);
    const small = sized(dir, 'small.npy', INDEX_BYTES - 1);
    const big = sized(dir, 'big.safetensors', DATA_BYTES);
    expect(isLargeGather([data, ids])).toBe(true);
    expect(isLargeGather([`${big}:embed`, ids])).toBe(true);
    expect(isLargeGather([data, small])).toBe(false);
    expect(isLargeGather([small, ids])).toBe(false);
    expect(isLargeGather([data, undefined])).toBe(false);
    expect(isLargeGather([join(dir, 'missing.npy'), ids])).toBe(false);
    expect(isLargeGather([dir, ids])).toBe(false);
  });

  it('the operands are DATA and INDICES_FILE as parsed, for the commands that hold them whole', async () => {
    const [data, ids] = ['d.npy', 'i.npy'];
    for (const command of ['gather-nd']) {
      expect(await wholeTensorInputs([command, data, ids])).toEqual([data, ids]);
      expect(await wholeTensorInputs([command, data, ids, '-o', 'out.npy'])).toEqual([data, ids]);
      expect(await wholeTensorInputs([command, '--oob', 'zero', data, ids])).toEqual([data, ids]);
      expect(await wholeTensorInputs([command, '--', data, ids])).toEqual([data, ids]);
      // An output named where an input would be, inline indices, stdin.
      expect(await wholeTensorInputs([command, data, '-o', ids])).toEqual([data, undefined]);
      expect(await wholeTensorInputs([command, data, '--indices', '1'])).toEqual([data, undefined]);
      expect(await wholeTensorInputs([command, '-', ids])).toEqual(['-', ids]);
    }
    // gather's large runs work in reused buffers; gather-elements' measured slower started
    // again; the others hold no index tensor.
    for (const argv of [
      ['gather', data, ids],
      ['gather-elements', data, ids],
      ['inspect', data, ids],
      ['convert', data, ids],
      ['show', data],
    ]) {
      expect(await wholeTensorInputs(argv)).toBeUndefined();
    }
  });
});

/** The environment of `pid` as a map (from /proc, as the kernel gave it to the process). */
function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean);
  return new Map(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

/** `pid` and its children, from /proc. */
function processTree(pid: number): number[] {
  try {
    const children = readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean),
    );
    return [pid, ...children.map(Number).flatMap(processTree)];
  } catch {
    return [];
  }
}

/** The process of the tree under `pid` that sleeps in a FIFO open, if any yet. */
function blockedOnFifoOpen(pid: number): number | undefined {
  return processTree(pid).find((p) => {
    try {
      return readdirSync(`/proc/${p}/task`).some(
        (t) => readFileSync(`/proc/${p}/task/${t}/wchan`, 'utf8') === 'wait_for_partner',
      );
    } catch {
      return false;
    }
  });
}

/**
 * Starts `gather FIFO IDX -o out.npy` (it blocks opening the FIFO), returns the environment of
 * the process that blocked, then ends the run with `signal`: how it ended and what it left.
 */
async function blockThenSignal(
  env: Record<string, string>,
  signal: NodeJS.Signals,
  to: 'process' | 'group' = 'process',
) {
  const dir = tempDir();
  const fifo = join(dir, 'in.npy');
  execFileSync('mkfifo', [fifo]);
  const out = join(dir, 'out.npy');
  writeFileSync(out, 'old');
  const child = spawn(process.execPath, [BIN, 'gather', fifo, IDX, '-o', out], {
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '', ...env },
    // Its own process group, which a terminal's Ctrl-C reaches as a whole.
    detached: to === 'group',
  });
  const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (code, sig) => resolve([code, sig])),
  );
  const blocked = await poll(() => blockedOnFifoOpen(child.pid as number));
  expect(blocked).toBeDefined();
  const environ = environOf(blocked as number);
  const raw = readFileSync(`/proc/${blocked}/environ`, 'latin1');
  if (to === 'group') process.kill(-(child.pid as number), signal);
  else child.kill(signal);
  const [code, sig] = await ended;
  return {
    environ,
    raw,
    code,
    sig,
    files: readdirSync(dir).sort(),
    old: readFileSync(out, 'utf8'),
  };
}

/** An int64 .npy of `count` zeros of shape [count, 1] (gather-nd's tuples of one), written sparse. */
function zeroIndices(dir: string, count: number): string {
  const path = join(dir, 'ids.npy');
  const header = encodeNpyHeader({ dtype: 'int64', shape: [count, 1] });
  writeFileSync(path, header);
  sparseTo(path, header.byteLength + count * 8);
  return path;
}

/** What `find` returns once it returns something, polled for up to 15 s. */
async function poll<T>(find: () => T | undefined): Promise<T | undefined> {
  const deadline = Date.now() + 15_000;
  for (let found = find(); Date.now() < deadline; found = find()) {
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 5));
  }
  return undefined;
}

/** Extends `path` with a hole to `bytes` bytes. */
function sparseTo(path: string, bytes: number): void {
  const fd = openSync(path, 'r+');
  ftruncateSync(fd, bytes);
  closeSync(fd);
}

/** The process of the tree under `pid` that runs with the tunable, if any yet. */
function relaunched(pid: number): number | undefined {
  return processTree(pid).find((p) => {
    try {
      return environOf(p).has('GLIBC_TUNABLES');
    } catch {
      return false;
    }
  });
}

describe.runIf(hugePagesWork())('the relaunched CLI', () => {
  it('starts for indices on a pipe or socket (size unknown) with large data, unasked', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.npy');
    writeFileSync(data, encodeNpyHeader({ dtype: 'int32', shape: [DATA_BYTES / 4096, 1024] }));
    sparseTo(data, DATA_BYTES);
    // stdin is a socket that stays open and empty: the CLI waits on it until the signal.
    const child = spawn(process.execPath, [BIN, 'gather-nd', data, '-', '-o', join(dir, 'o.npy')], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '' },
    });
    const ended = new Promise((resolve) => child.on('exit', resolve));
    const reader = await poll(() => relaunched(child.pid as number));
    expect(reader).toBeDefined();
    expect(environOf(reader as number).get('GLIBC_TUNABLES')).toBe('glibc.malloc.hugetlb=1');
    child.kill('SIGTERM');
    await ended;
    expect(readdirSync(dir)).toEqual(['data.npy']);
  });

  it('does not start for data on a pipe or socket: the CLI that reads it is the one the user started', async () => {
    const dir = tempDir();
    const ids = zeroIndices(dir, INDEX_BYTES / 8);
    const child = spawn(process.execPath, [BIN, 'gather-nd', '-', ids, '-o', join(dir, 'o.npy')], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '', TMPDIR: dir },
    });
    const ended = new Promise((resolve) => child.on('exit', resolve));
    // stdin is a socket. A .npy header declaring 64 MiB, then 1 MiB of it: the write completes
    // only once the CLI has read most of it (the socket buffers a few hundred KiB), so its run
    // has begun, and the relaunch, had there been one, came before.
    const header = encodeNpyHeader({ dtype: 'int32', shape: [DATA_BYTES / 4096, 1024] });
    await new Promise((resolve) =>
      child.stdin.write(Buffer.concat([header, Buffer.alloc(1 << 20)]), resolve),
    );
    expect(processTree(child.pid as number)).toEqual([child.pid]);
    expect(environOf(child.pid as number).has('GLIBC_TUNABLES')).toBe(false);
    child.kill('SIGTERM');
    await ended;
    expect(readdirSync(dir)).toEqual(['ids.npy']);
  });

  it('does not start for gather, whose large runs work in reused buffers', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.npy');
    const dataHeader = encodeNpyHeader({ dtype: 'int32', shape: [DATA_BYTES / 4096, 1024] });
    writeFileSync(data, dataHeader);
    sparseTo(data, dataHeader.byteLength + DATA_BYTES);
    // Large data, indices on stdin (a socket, size unknown): what starts gather-nd again above.
    const child = spawn(process.execPath, [BIN, 'gather', data, '-', '-o', join(dir, 'o.npy')], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '' },
    });
    const ended = new Promise((resolve) => child.on('exit', resolve));
    child.stdin.on('error', () => {}); // a CLI that ended early fails the checks below instead
    // The write of 4 MiB of indices completes only once the CLI has read most of it, so its run
    // has begun, and the relaunch, had there been one, came before.
    const header = encodeNpyHeader({ dtype: 'int64', shape: [1 << 20] });
    const ids = Buffer.concat([header, Buffer.alloc(4 << 20)]);
    await new Promise((resolve) => child.stdin.write(ids, resolve));
    expect(processTree(child.pid as number)).toEqual([child.pid]);
    expect(environOf(child.pid as number).has('GLIBC_TUNABLES')).toBe(false);
    child.kill('SIGTERM');
    await ended;
    expect(readdirSync(dir)).toEqual(['data.npy']);
  });

  it('runs with the tunable when asked, and not when turned off', async () => {
    const on = await blockThenSignal(FORCED, 'SIGTERM');
    expect(on.environ.get('GLIBC_TUNABLES')).toBe('glibc.malloc.hugetlb=1');
    const off = await blockThenSignal(OFF, 'SIGTERM');
    expect(off.environ.has('GLIBC_TUNABLES')).toBe(false);
  });

  it('keeps tunables the user set', async () => {
    const tunables = 'glibc.malloc.arena_max=2';
    const r = await blockThenSignal({ ...FORCED, GLIBC_TUNABLES: tunables }, 'SIGINT');
    // glibc splits the variable in place at ':' as it reads it, so the rest follows a NUL.
    expect(r.raw).toContain(`GLIBC_TUNABLES=${tunables}`);
    expect(r.raw).toMatch(
      /GLIBC_TUNABLES=glibc\.malloc\.arena_max=2[:\0]glibc\.malloc\.hugetlb=1\0/,
    );
  });

  it('ends by a signal sent to the process the user started, leaving no temp file', async () => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) {
      const r = await blockThenSignal(FORCED, signal);
      expect(r.environ.get('GLIBC_TUNABLES')).toBe('glibc.malloc.hugetlb=1');
      expect([r.code, r.sig]).toEqual([null, signal]);
      expect(r.files).toEqual(['in.npy', 'out.npy']);
      expect(r.old).toBe('old');
    }
  });

  it('ends by a signal sent to its whole process group, as a Ctrl-C, leaving no temp file', async () => {
    for (const signal of ['SIGINT', 'SIGQUIT'] as const) {
      const r = await blockThenSignal(FORCED, signal, 'group');
      expect([r.code, r.sig]).toEqual([null, signal]);
      expect(r.files).toEqual(['in.npy', 'out.npy']);
    }
  });

  it('writes the same bytes, exit codes and error lines as the CLI run directly', () => {
    const dir = tempDir();
    const runs = [
      ['gather', DATA, IDX, '--axis', '1'],
      ['gather', DATA, IDX, '--axis', '1', '-o', join(dir, 'out.npy')],
      ['gather', DATA, IDX, '--axis', '7'],
      ['gather', join(dir, 'missing.npy'), IDX],
      ['gather', DATA, IDX, '--axis'],
    ];
    for (const args of runs) {
      const direct = tensorops(args, { env: OFF });
      const relaunched = tensorops(args, { env: FORCED });
      expect(relaunched.status).toBe(direct.status);
      expect(relaunched.stderr).toBe(direct.stderr);
      expect(Buffer.compare(relaunched.stdout, direct.stdout)).toBe(0);
    }
    expect(runs.map((args) => tensorops(args, { env: FORCED }).status)).toEqual([0, 0, 1, 1, 2]);
  });

  it('reads data piped on stdin', () => {
    const input = readFileSync(DATA);
    const direct = tensorops(['gather', '-', IDX, '--axis', '1'], { input, env: OFF });
    const relaunched = tensorops(['gather', '-', IDX, '--axis', '1'], { input, env: FORCED });
    expect(direct.status).toBe(0);
    expect(relaunched.status).toBe(0);
    expect(Buffer.compare(relaunched.stdout, direct.stdout)).toBe(0);
  });
});
