import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
});
