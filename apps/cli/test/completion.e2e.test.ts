import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { tempDir, tensorops } from './helpers.js';

// Completion as a shell asks for it: the candidates the CLI answers, and the script bash runs.

const candidates = (words: string[], env: Record<string, string> = {}, cwd?: string) => {
  const r = tensorops(['--get-yargs-completions', 'tensorops', ...words], {
    env,
    ...(cwd === undefined ? {} : { cwd }),
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout
    .toString()
    .split('\n')
    .filter((line) => line !== '');
};

async function checkpoint(dir: string): Promise<void> {
  const one = tensorFrom('float32', [1], [1]);
  const names = ['embed.weight', 'model.layers.0.mlp.weight', 'model.layers.1.mlp.weight', 'x:0'];
  await writeTensorsFile(
    join(dir, 'model.safetensors'),
    names.map((name) => ({ name, data: one })),
  );
}

describe('completion candidates', () => {
  it('offer each flag as it is typed: no --o or --q', () => {
    const long = candidates(['show', '--f']);
    expect(long).toContain('--output');
    expect(long).toContain('--quiet');
    expect(long.filter((c) => /^--.$/.test(c))).toEqual([]);
    expect(candidates(['show', ''])).toEqual(expect.arrayContaining(['-o', '-q', '--head']));
    const zsh = candidates(['show', '--f'], { SHELL: '/usr/bin/zsh' });
    expect(zsh.some((c) => c.startsWith('--output:'))).toBe(true);
    expect(zsh.filter((c) => /^--.:/.test(c))).toEqual([]);
  });

  it('offer only the flags of the command', () => {
    const inspect = candidates(['inspect', '--f']);
    expect(inspect).toEqual(expect.arrayContaining(['--filter', '--verify', '--json']));
    expect(inspect).not.toContain('--output');
    expect(inspect).not.toContain('--head');
  });

  it('complete tensor names after FILE:, from the header of a local file', async () => {
    const dir = tempDir();
    await checkpoint(dir);
    expect(candidates(['show', 'model.safetensors:model.'], {}, dir)).toEqual([
      'model.safetensors:model.layers.0.mlp.weight',
      'model.safetensors:model.layers.1.mlp.weight',
    ]);
    // bash sends FILE, `:` and the start of the name as three words.
    expect(candidates(['show', 'model.safetensors', ':', 'e'], {}, dir)).toEqual(['embed.weight']);
    expect(candidates(['show', 'model.safetensors', ':'], {}, dir)).toHaveLength(4);
    expect(candidates(['show', 'model.safetensors:x'], { SHELL: '/bin/zsh' }, dir)).toEqual([
      'model.safetensors\\:x\\:0',
    ]);
    // Not a tensor file, or not there: the usual candidates.
    writeFileSync(join(dir, 'notes.txt'), 'x:1\n');
    expect(candidates(['show', 'notes.txt:'], {}, dir)).not.toContain('notes.txt:x');
    expect(candidates(['show', 'missing.safetensors:'], {}, dir)).toEqual([]);
  });
});

describe('the fish completion script', () => {
  it('fish: printed for SHELL=/bin/fish or `completion fish`', () => {
    const bySHELL = tensorops(['completion'], { env: { SHELL: '/bin/fish' } });
    expect(bySHELL.status).toBe(0);
    const script = bySHELL.stdout.toString();
    expect(script).toContain(
      'tensorops --get-yargs-completions (commandline -opc) (commandline -ct)',
    );
    expect(script).toContain("complete -c tensorops -a '(__tensorops_completions)'");
    expect(tensorops(['completion', 'fish']).stdout.toString()).toBe(script);
    const other = tensorops(['completion', 'tcsh']);
    expect(other.status).toBe(2);
    expect(other.stderr).toBe("tensorops: error: completion takes bash, zsh or fish, got 'tcsh'\n");
  });
});
