import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/design.md is the contract; its examples are run here against the built packages (each
// from the folder of the package it imports, resolved by name as a user's import would be) and
// must print exactly what the document says they print.
const root = new URL('..', import.meta.url);
const design = readFileSync(new URL('docs/design.md', root), 'utf8');

interface Example {
  readonly section: string;
  readonly code: string;
  readonly prints: string;
}

function examples(): Example[] {
  const found: Example[] = [];
  const pattern = /^Example:\n\n```js\n([\s\S]*?)```\n\nprints\n\n```text\n([\s\S]*?)```/gm;
  for (const match of design.matchAll(pattern)) {
    const before = design.slice(0, match.index);
    const section = before.slice(before.lastIndexOf('\n### ') + 5).split('\n')[0] as string;
    found.push({ section, code: match[1] as string, prints: match[2] as string });
  }
  return found;
}

function packageOf(code: string): string {
  return code.includes("from '@tensorops/gather-tree'") ? 'gather-tree' : 'core';
}

describe('docs/design.md', () => {
  const all = examples();

  it('has an example for every op', () => {
    expect(all.map((e) => e.section)).toEqual([
      '3.1 Gather',
      '3.2 GatherElements',
      '3.3 GatherND',
      '3.4 GatherTree',
    ]);
  });

  for (const example of all) {
    it(`the example of §${example.section} prints what the document says`, () => {
      const dir = new URL(`packages/${packageOf(example.code)}/`, root);
      expect(existsSync(new URL('dist/index.js', dir)), 'build the packages first').toBe(true);
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', example.code], {
        cwd: fileURLToPath(dir),
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(example.prints);
    });
  }
});
