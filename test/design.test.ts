import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/design.md is the contract; its examples are run here against the built packages (each
// from the folder of the package it imports, resolved by name as a user's import would be) and
// must print exactly what the document says they print. It and docs/architecture.md name only
// repository paths that exist, and the architecture names every source folder.
const root = new URL('..', import.meta.url);
const readDoc = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const design = readDoc('docs/design.md');

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

function namedPaths(text: string): string[] {
  const paths = [...text.matchAll(repositoryPath)].map((match) =>
    match[0].replace(/\*.*$/, '').replace(/[.]+$/, ''),
  );
  return [...new Set(paths)];
}

/** The folders under each package's src/ (and src/ itself), as `packages/io/src/file/`. */
function sourceFolders(): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    found.push(folder);
    for (const entry of readdirSync(new URL(folder, root), { withFileTypes: true }))
      if (entry.isDirectory()) walk(`${folder}${entry.name}/`);
  };
  for (const group of ['packages', 'apps'])
    for (const name of readdirSync(new URL(`${group}/`, root)))
      if (existsSync(new URL(`${group}/${name}/src/`, root))) walk(`${group}/${name}/src/`);
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

for (const doc of ['docs/design.md', 'docs/architecture.md']) {
  describe(doc, () => {
    it('names only repository paths that exist', () => {
      const named = namedPaths(readDoc(doc));
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((path) => !existsSync(new URL(path, root)))).toEqual([]);
    });
  });
}

describe('docs/architecture.md', () => {
  it('names every source folder of the packages and the CLI', () => {
    const architecture = readDoc('docs/architecture.md');
    const folders = sourceFolders();
    expect(folders).toContain('packages/io/src/fast/passes/');
    expect(folders.filter((folder) => !architecture.includes(`\`${folder}\``))).toEqual([]);
  });
});
