import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completionScript } from './completion.js';

/** The script yargs itself prints for `tensorops completion` in a process whose $SHELL is `shell`. */
function yargsScript(shell: string): string {
  const program = `import yargs from 'yargs';
yargs().scriptName('tensorops').completion('completion', 'x').exitProcess(false)
  .parse(['completion'], {}, (_e, _a, output) => process.stdout.write(output));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
    // Run from the package, so that `yargs` resolves to its own dependency.
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { PATH: process.env.PATH ?? '', SHELL: shell },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.stderr).toBe('');
  return r.stdout;
}

describe('completion scripts', () => {
  it("are yargs' own scripts for bash and zsh, whatever $SHELL is", () => {
    const bash = yargsScript('/bin/bash');
    const zsh = yargsScript('/usr/bin/zsh');
    expect(bash).toContain('complete -o bashdefault');
    expect(zsh).toContain('#compdef tensorops');
    for (const env of [{ SHELL: '/bin/bash' }, { SHELL: '/usr/bin/zsh' }, {}]) {
      expect(completionScript(['bash'], env)).toBe(bash);
      expect(completionScript(['zsh'], env)).toBe(zsh);
    }
  });

  it('follow $SHELL when no shell is named, and refuse other shells', () => {
    expect(completionScript([], { SHELL: '/usr/bin/zsh' })).toContain('#compdef tensorops');
    expect(completionScript([], { SHELL: '/bin/bash' })).toContain('complete -o bashdefault');
    expect(completionScript([], {})).toContain('complete -o bashdefault');
    expect(completionScript([], { SHELL: '/usr/bin/fish' })).toContain('complete -c tensorops');
    for (const other of [['tcsh'], ['constructor'], ['bash', 'zsh']]) {
      expect(() => completionScript(other, {})).toThrow(
        `completion takes bash, zsh or fish, got '${other.join(' ')}'`,
      );
    }
  });
});
