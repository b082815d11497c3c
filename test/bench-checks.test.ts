import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The bench's linear pairs check every output and message of the built CLI before they time it,
// and need no Python: run quick, they keep those checks in step with what the CLI writes. No
// figure is judged here (timings belong to `pnpm bench`), only that every check passed.
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tensorops-bench-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench', () => {
  it('linear --quick: every pair writes what its check expects', () => {
    const json = join(dir, 'linear.json');
    const r = spawnSync(
      process.execPath,
      [
        'bench/run.mjs',
        'linear',
        '--quick',
        '--no-numpy',
        '--no-ort',
        '--no-install',
        '--json',
        json,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.stdout).not.toContain('linear failed');
    expect(r.status).toBe(0);
    const pairs = JSON.parse(readFileSync(json, 'utf8')).linear.map(
      (p: { pair: string }) => p.pair,
    );
    expect(pairs).toEqual([
      'shard index',
      'tensors in one shard',
      'text indices',
      'a long bad line',
    ]);
  }, 120_000);
});
