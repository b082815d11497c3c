import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The README's container example is documentation users copy: run it against the built package
// (resolved through the package's own name, as a user's import would be) and compare its output.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function block(after: string, lang: string): string {
  const start = readme.indexOf(after);
  const open = readme.indexOf(`\`\`\`${lang}\n`, start);
  const close = readme.indexOf('\n```', open + 4);
  if (start < 0 || open < 0 || close < 0) throw new Error(`no ${lang} block after ${after}`);
  return readme.slice(open + lang.length + 4, close + 1);
}

describe('README', () => {
  it('the containers example runs and prints what the README says', () => {
    expect(existsSync(new URL('../dist/node/index.js', import.meta.url)), 'build io first').toBe(
      true,
    );
    const code = block('## Example: containers', 'js');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(block('prints', 'text'));
  });

  // The public entries' names, values and types alike, as TypeScript sees them from the sources.
  it.each([
    ['@tensorops/io', 'index.ts'],
    ['@tensorops/io/node', 'node/index.ts'],
  ])('documents every export of %s in its API section', (entry, file) => {
    const path = fileURLToPath(new URL(`../src/${file}`, import.meta.url));
    const program = ts.createProgram([path], { noEmit: true, types: [] });
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(path) as ts.SourceFile);
    const names = checker.getExportsOfModule(module as ts.Symbol).map((s) => s.name);
    expect(names.length).toBeGreaterThan(20);
    const start = readme.indexOf(`### \`${entry}\``);
    const section = readme.slice(start, readme.indexOf('\n### ', start + 1));
    expect(start).toBeGreaterThan(0);
    // Named in code: `name` alone, or called as `name(...)`.
    expect(names.filter((name) => !new RegExp(`\`${name}[\`(]`).test(section))).toEqual([]);
  });
});
