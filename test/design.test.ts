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

// A repository path the document names (in backticks, as a link or in prose), cut at a glob's
// `*` and at the punctuation that ends a sentence. Names of example files (`model.safetensors`)
// start with none of these folders.
const repositoryPath =
  /(?<![\w@./-])(?:\.ci|apps|bench|docs|fixtures|packages|scripts|test)\/[\w.*/-]*/g;

function namedPaths(): string[] {
  const paths = [...design.matchAll(repositoryPath)].map((match) =>
    match[0].replace(/\*.*$/, '').replace(/[.]+$/, ''),
  );
  return [...new Set(paths)];
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

  it('names only repository paths that exist', () => {
    const named = namedPaths();
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((path) => !existsSync(new URL(path, root)))).toEqual([]);
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
