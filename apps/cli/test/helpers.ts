import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

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
 */
export function tensorops(
  args: readonly string[],
  options: {
    input?: Uint8Array;
    cwd?: string;
    env?: Record<string, string>;
    nodeArgs?: string[];
    timeoutMs?: number;
  } = {},
): RunResult {
  const r: SpawnSyncReturns<Buffer> = spawnSync(
    process.execPath,
    [...(options.nodeArgs ?? []), BIN, ...args],
    {
      input: options.input ?? new Uint8Array(0),
      cwd: options.cwd ?? REPO,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      maxBuffer: 1 << 30,
      ...(options.timeoutMs === undefined
        ? {}
        : { timeout: options.timeoutMs, killSignal: 'SIGKILL' }),
    },
  );
  return {
    status: r.status,
    signal: r.signal,
    stdout: r.stdout,
    stderr: r.stderr.toString('utf8'),
  };
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
