// scripts/stress.mjs in its reduced form: every hostile case against the built CLI, bounded in
// time (a timeout per case) and memory (each case's own limit), in a temp dir of its own that it
// must leave empty, with nothing written anywhere else (the repository's files stay as they were).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/**
 * Cases not fixed on this branch yet: they still run (and must end within their timeout), but
 * their verdict is not asserted. Zero-width strings are refused by design (docs/design.md §7.1).
 */
const OPEN = new Set<string>([
  'stdout-full-gather',
  'stdout-full-gather-json',
  'stdout-full-inspect',
  'stdout-full-convert-stdout',
  'stdout-closed-gather',
  'signal-SIGHUP-mid',
  'target-readonly-mode-kept',
  'target-readonly-as-nobody',
  'target-npz-member',
  'target-rank-65',
  'npy-descr-U0',
  'npy-descr-S0',
]);

interface Row {
  readonly verdict: 'PASS' | 'FAIL' | 'SKIP';
  readonly id: string;
  readonly filesLeft: number | null;
}

const status = () =>
  spawnSync('git', ['status', '--porcelain', '--ignored'], { cwd: REPO, encoding: 'utf8' }).stdout;

it('survives every hostile case in its reduced form, leaving nothing behind', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tensorops-stress-test-'));
  const before = status();
  try {
    const r = spawnSync(
      process.execPath,
      [join(REPO, 'scripts/stress.mjs'), '--reduced', '--json'],
      { cwd: tmp, env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 600_000 },
    );
    expect(r.stderr).toBe('');
    const rows = JSON.parse(r.stdout) as Row[];
    expect(rows.length).toBeGreaterThan(40);
    const failed = rows.filter((row) => row.verdict === 'FAIL' && !OPEN.has(row.id));
    expect(failed).toEqual([]);
    // The script removes its own folder; nothing else appeared in TMPDIR or the repository.
    expect(readdirSync(tmp)).toEqual([]);
    expect(status()).toBe(before);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}, 900_000);
