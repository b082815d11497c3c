import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README's "30-second example" is run here as written, from the repository root, through the
// root `tensorops` script that the set-up command leaves runnable: each `$ ` line is a shell
// command, and the lines after it are exactly what it prints (stdout, then stderr).
const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('README.md', new URL('..', import.meta.url)), 'utf8');

interface Example {
  readonly command: string;
  readonly prints: string;
}

function examples(): Example[] {
  const start = readme.indexOf('## 30-second example');
  const end = readme.indexOf('\n## ', start + 1);
  const found: Example[] = [];
  for (const block of readme.slice(start, end).matchAll(/```console\n([\s\S]*?)```/g)) {
    for (const part of (block[1] as string).split(/^\$ /m).slice(1)) {
      const [command, ...output] = part.split('\n');
      found.push({ command: command as string, prints: output.join('\n') });
    }
  }
  return found;
}

describe('README', () => {
  const all = examples();

  for (const { command, prints } of all) {
    it(`runs: ${command}`, () => {
      const r = spawnSync('sh', ['-c', command], { cwd: root, encoding: 'utf8', env: process.env });
      expect(r.stdout + r.stderr).toBe(prints);
      expect(r.status === 0).toBe(!prints.startsWith('tensorops: error:'));
    });
  }
});
