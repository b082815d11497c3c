import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeNpyHeader } from '@tensorops/io';
import { afterEach, expect } from 'vitest';

export const BIN = fileURLToPath(new URL('../dist/tensorops.cjs', import.meta.url));
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const EXAMPLES = join(REPO, 'examples');

/**
 * A file of the repository as the CLI is given it: relative to REPO, the folder tensorops() runs
 * it in, so that a message quoting it back reads the same wherever the checkout lives.
 */
export function repoArg(...parts: string[]): string {
  return join(...parts);
}

export interface RunResult {
  readonly status: number | null;
  /** The signal that ended the run (SIGKILL when it outlived `timeoutMs`), else null. */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * Spawns the built bin with piped stdio (so stdout is not a TTY), optional stdin bytes. With
 * `timeoutMs`, a run that would hang is killed then (spawnSync blocks the test's own timers).
 * With `openFiles`, the run may hold at most that many descriptors open (`ulimit -n` in sh).
 */
export function tensorops(
  args: readonly string[],
  options: {
    input?: Uint8Array;
    cwd?: string;
    env?: Record<string, string>;
    nodeArgs?: string[];
    timeoutMs?: number;
    openFiles?: number;
  } = {},
): RunResult {
  const argv = [process.execPath, ...(options.nodeArgs ?? []), BIN, ...args];
  const limited =
    options.openFiles === undefined
      ? argv
      : ['sh', '-c', `ulimit -n ${options.openFiles} && exec "$0" "$@"`, ...argv];
  const r: SpawnSyncReturns<Buffer> = spawnSync(limited[0] as string, limited.slice(1), {
    input: options.input ?? new Uint8Array(0),
    cwd: options.cwd ?? REPO,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    maxBuffer: 1 << 30,
    ...(options.timeoutMs === undefined
      ? {}
      : { timeout: options.timeoutMs, killSignal: 'SIGKILL' }),
  });
  return {
    status: r.status,
    signal: r.signal,
    stdout: r.stdout,
    stderr: r.stderr.toString('utf8'),
  };
}

/**
 * {@link tensorops} without blocking this process (an HTTP server the test runs here keeps
 * answering), stdin closed, `env` added to PATH. A run still going after 20 s is killed (status
 * null), so a hang fails the test instead of stalling it.
 */
export function tensoropsAsync(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const hang = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('close', (status, signal) => {
      clearTimeout(hang);
      const stderr = Buffer.concat(err).toString();
      resolve({ status, signal, stdout: Buffer.concat(out), stderr });
    });
  });
}

const dirs: string[] = [];

/** A fresh temp folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tensorops-cli-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function listDir(dir: string): string[] {
  return readdirSync(dir).sort();
}

/** `big.npy` in `dir`: float32 [16384, 1024], 64 MiB of zeros, sparse on disk. */
export function sparseNpy(dir: string): string {
  const path = join(dir, 'big.npy');
  const header = encodeNpyHeader({ dtype: 'float32', shape: [16384, 1024] });
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  ftruncateSync(fd, header.byteLength + 64 * 2 ** 20);
  closeSync(fd);
  return path;
}

/**
 * Every byte a successful run of `args` read, its own code included: rchar of /proc/self/io,
 * printed at exit by a script preloaded from `dir`.
 */
export function bytesReadBy(dir: string, args: readonly string[]): number {
  const probe = join(dir, 'probe.cjs');
  writeFileSync(
    probe,
    "process.on('exit', () => require('fs').writeSync(2, /rchar: (\\d+)/.exec(require('fs').readFileSync('/proc/self/io', 'utf8'))[1]));",
  );
  const r = tensorops(args, { nodeArgs: ['-r', probe] });
  expect(r.status).toBe(0);
  return Number(r.stderr);
}
