// outputReplacedWhole decides whether a command may hand its output on before it has checked all
// of it: only where the writer replaces a regular file whole. Real paths in a temp folder.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outputReplacedWhole } from './replaced-whole.js';

const dir = mkdtempSync(join(tmpdir(), 'tensorops-replaced-whole-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('outputReplacedWhole', () => {
  it('a new path, an existing regular file, a link to one, a member of a new .npz: yes', async () => {
    writeFileSync(join(dir, 'old.npy'), 'x');
    symlinkSync(join(dir, 'old.npy'), join(dir, 'link.npy'));
    expect(await outputReplacedWhole(join(dir, 'new.npy'))).toBe(true);
    expect(await outputReplacedWhole(join(dir, 'old.npy'))).toBe(true);
    expect(await outputReplacedWhole(join(dir, 'link.npy'))).toBe(true);
    expect(await outputReplacedWhole(`${join(dir, 'new.npz')}:embed`)).toBe(true);
  });

  it('no -o, stdout, a descriptor, a FIFO (also as FILE:NAME), a folder: no', async () => {
    const fifo = join(dir, 'fifo.npz');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(dir, 'folder'));
    for (const output of [undefined, '', '-', '/dev/stdout', '/dev/fd/1', fifo, `${fifo}:embed`]) {
      expect(await outputReplacedWhole(output), String(output)).toBe(false);
    }
    expect(await outputReplacedWhole(join(dir, 'folder'))).toBe(false);
    expect(await outputReplacedWhole(`${join(dir, 'folder')}/`)).toBe(false);
  });
});
