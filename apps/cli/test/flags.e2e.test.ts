import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { BIN, listDir, REPO, tempDir, tensorops } from './helpers.js';

const fx = (name: string): string => join(REPO, 'fixtures', 'cli', `${name}.npy`);
const VERSION = JSON.parse(readFileSync(join(REPO, 'apps', 'cli', 'package.json'), 'utf8')).version;

/** A usage error: exit 2, exactly this one stderr line, nothing on stdout, no file written. */
function expectUsage(args: readonly string[], message: string, dir = tempDir()): void {
  const r = tensorops(args, { cwd: dir });
  expect(r.stderr).toBe(`tensorops: error: ${message}\n`);
  expect(r.status).toBe(2);
  expect(r.stdout.length).toBe(0);
  expect(listDir(dir)).toEqual([]);
}

describe('tensorops flags: every mistake is a one-line usage error', () => {
  it('-o twice is refused, and neither file is written', () => {
    expectUsage(
      ['gather', fx('data'), fx('idx'), '-o', 'a.npy', '-o', 'b.npy'],
      '--output is given more than once; give it once',
    );
    expectUsage(
      ['gather', fx('data'), fx('idx'), '--axis', '0', '--axis', '1'],
      '--axis is given more than once; give it once',
    );
  });

  it('a bad --oob names the flag and its choices', () => {
    expectUsage(
      ['gather', fx('data'), fx('idx'), '--oob', 'bogus'],
      "--oob takes one of error, zero, got 'bogus'",
    );
  });

  it('a required flag left out is named with what it is and the command that needs it', () => {
    const beamInputs = [fx('gt_steps'), fx('gt_parents'), fx('gt_lengths')];
    for (const command of ['beams', 'gather-tree']) {
      expectUsage(
        [command, ...beamInputs, '-o', 'out.json'],
        `missing --end-token (the end-of-sequence id), which ${command} requires (see tensorops ${command} --help)`,
      );
    }
  });

  it('every integer flag given without a value is an error, not its default', () => {
    const cases: [string[], string][] = [
      [['gather', fx('data'), fx('idx'), '--axis'], 'axis'],
      [['gather', fx('data'), fx('idx'), '--batch-dims', '--json'], 'batch-dims'],
      [['gather-elements', fx('data'), fx('idx'), '--axis'], 'axis'],
      [['gather-nd', fx('data'), fx('idx'), '--batch-dims'], 'batch-dims'],
    ];
    for (const [args, flag] of cases) expectUsage(args, `--${flag} needs a value`);
  });

  it('integer flags take integers as typed: no fractions, hex or exponents', () => {
    for (const value of ['1.5', '0x1', '1e0', '']) {
      expectUsage(
        ['gather', fx('data'), fx('idx'), `--axis=${value}`],
        `--axis takes an integer, got '${value}'`,
      );
    }
  });

  it('-- ends the options: a file named -x.npy is read as a file', () => {
    const dir = tempDir();
    copyFileSync(fx('data'), join(dir, '-x.npy'));
    copyFileSync(fx('idx'), join(dir, '-i.npy'));
    const r = tensorops(['gather', '--axis', '1', '--', '-x.npy', '-i.npy'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const direct = tensorops(['gather', fx('data'), fx('idx'), '--axis', '1']);
    expect(r.stdout.equals(direct.stdout)).toBe(true);
    // Without --, the same word reads as an option.
    expectUsage(
      ['gather', '-x.npy', fx('idx')],
      "missing operands: got 0, need at least 1 ('-x.npy' reads as an option: put files after --)",
    );
  });

  it('a mistyped flag gets the closest one; an extra operand is named', () => {
    expectUsage(
      ['gather', fx('data'), fx('idx'), '--bach-dims', '1'],
      'unknown option --bach-dims; did you mean --batch-dims?',
    );
    expectUsage(
      ['gather-nd', fx('data'), fx('idx'), '--flaten-batch'],
      'unknown option --flaten-batch; did you mean --flatten-batch?',
    );
    expectUsage(
      ['gather', fx('data'), fx('idx'), '--zzzzzz'],
      'unknown option --zzzzzz (see --help)',
    );
    expectUsage(['gather', fx('data'), fx('idx'), 'extra.npy'], "unexpected argument 'extra.npy'");
  });

  it('an unknown flag that took the only operand as its value is named, not the operand', () => {
    expectUsage(['show', '--hed', fx('data')], 'unknown option --hed; did you mean --head?');
    expectUsage(['show', '-x', fx('data')], 'unknown option -x (see --help)');
    expectUsage(['show', '--zzzzzz=1', fx('data')], 'unknown option --zzzzzz (see --help)');
    // Known flags, their negations and negative values are not taken for unknown ones.
    expectUsage(['gather', '--axis', '-1'], 'missing operands: got 0, need at least 1');
    expectUsage(['gather', '-o', 'out.npy'], 'missing operands: got 0, need at least 1');
    expectUsage(['show', '--no-color'], 'missing operands: got 0, need at least 1');
  });

  it('-:NAME (a named tensor on standard input) says that stdin takes no name', () => {
    const message = "'-:embed': standard input takes no tensor name; give '-' alone";
    expectUsage(['show', '-:embed'], message);
    expectUsage(['gather', '-:embed', fx('idx')], message);
    expectUsage(['gather', '-:embed', fx('data'), fx('idx')], message);
  });

  it('messages quote what was typed: - and the words after -- as they are', () => {
    expectUsage(
      ['gather', fx('data'), fx('idx'), '--axis', '-'],
      "--axis takes an integer, got '-'",
    );
    expectUsage(
      ['gather', fx('data'), fx('idx'), '--oob', '-'],
      "--oob takes one of error, zero, got '-'",
    );
    expectUsage(
      ['gather', fx('data'), fx('idx'), '--axis', '1', '--format', '-'],
      "--format takes one of npy, npz, safetensors, json, csv, tsv, txt, got '-'",
    );
    expectUsage(
      ['gather', '--', '-x.npy', '--indices', '1'],
      "unexpected argument '1' ('--indices' is after --, so an operand, not an option)",
    );
    expectUsage(['gather', '--', fx('data'), fx('idx'), '-z'], "unexpected argument '-z'");
    expectUsage(['--', 'gathr'], "unknown command 'gathr'; did you mean gather?");
    // Inline indices are text: `-` is a value there, quoted as typed (a data error).
    const dir = tempDir();
    const r = tensorops(['gather', fx('data'), '--indices', '-'], { cwd: dir });
    expect(r.stderr).toBe("tensorops: error: --indices: line 1, column 1: '-' is not an integer\n");
    expect(r.status).toBe(1);
  });
});

/** The long flags a `--help` text lists. */
function listedFlags(args: readonly string[]): string[] {
  const r = tensorops(args);
  expect(r.status).toBe(0);
  const options = r.stdout.toString().split('\nOptions:\n')[1]?.split('\n\n')[0] ?? '';
  return [...options.matchAll(/^ {2}(?:-\w, )? *--([a-z-]+)/gm)].map((m) => m[1] as string);
}

describe('tensorops flags belong to the commands that use them', () => {
  it("a flag only other commands take is a one-line usage error, in the command's words", () => {
    const idx = fx('idx');
    expectUsage(
      ['inspect', fx('data'), '--force'],
      'inspect does not take --force (see tensorops inspect --help)',
    );
    expectUsage(
      ['beams', idx, idx, idx, '--end-token', '1', '--header'],
      'beams does not take --header (see tensorops beams --help)',
    );
    expectUsage(
      ['convert', fx('data'), 'out.npy', '--no-color'],
      'convert does not take --color (see tensorops convert --help)',
    );
    expectUsage(
      ['gather', fx('data'), idx, '--verify'],
      'gather does not take --verify (see tensorops gather --help)',
    );
    // Before the command's name too, where it would otherwise take that name as its value.
    expectUsage(
      ['--force', 'inspect', fx('data')],
      'inspect does not take --force (see tensorops inspect --help)',
    );
    expectUsage(
      ['convert', fx('data'), 'out.npy', '-o', 'x.npy'],
      'convert writes to OUT; -o is not used',
    );
    expectUsage(
      ['inspect', fx('data'), '--output=x.npy'],
      'inspect prints to stdout; -o is not used',
    );
  });

  it('--help of a command lists the flags it takes, and only those', () => {
    const http = ['http-header', 'max-download', 'timeout'];
    const common = ['version', 'help'];
    const textInput = ['from', 'dtype', 'delimiter', 'skip-rows'];
    expect(listedFlags(['--help'])).toEqual(common);
    expect(listedFlags(['inspect', '--help'])).toEqual([
      'json',
      'quiet',
      'color',
      ...http,
      'filter',
      'sort',
      'format',
      'summary',
      'metadata',
      'verify',
      ...common,
    ]);
    expect(listedFlags(['beams', '--help'])).toEqual([
      'output',
      'format',
      'json',
      'quiet',
      ...http,
      'end-token',
      'include-end',
      ...common,
    ]);
    expect(listedFlags(['convert', '--help'])).toEqual([
      'format',
      'json',
      'force',
      'header',
      'quiet',
      ...http,
      ...textInput,
      'slice',
      'compress',
      'keep-quantized',
      ...common,
    ]);
    const output = ['output', 'format', 'json', 'force', 'header', 'quiet', 'color'];
    expect(listedFlags(['gather', '--help'])).toEqual([
      ...output,
      ...http,
      'indices',
      ...textInput,
      'slice',
      'axis',
      'batch-dims',
      'oob',
      ...common,
    ]);
    expect(listedFlags(['gather-elements', '--help'])).toEqual([
      ...output,
      ...http,
      'indices',
      ...textInput,
      'slice',
      'axis',
      'oob',
      ...common,
    ]);
    expect(listedFlags(['gather-nd', '--help'])).toEqual([
      ...output,
      ...http,
      'indices',
      ...textInput,
      'slice',
      'batch-dims',
      'flatten-batch',
      'oob',
      ...common,
    ]);
    // The gathers' text flags read DATA; the index operand keeps its own grammar.
    const gatherHelp = tensorops(['gather', '--help']).stdout.toString();
    for (const flag of ['dtype', 'delimiter', 'skip-rows']) {
      expect(gatherHelp).toMatch(new RegExp(`--${flag}\\s+text DATA, never the indices: `));
    }
    expect(gatherHelp).toMatch(
      /--from\s+read DATA on stdin \(-\) as text data: .*never the indices/,
    );
    expect(listedFlags(['show', '--help'])).toEqual([
      ...output,
      ...http,
      ...textInput,
      'slice',
      'head',
      ...common,
    ]);
  });

  it("a boolean flag typed before the command name is read as that command's flag", () => {
    const dir = tempDir();
    const before = tensorops(['-q', '--json', 'gather', fx('data'), fx('idx'), '--axis', '1'], {
      cwd: dir,
    });
    const after = tensorops(['gather', fx('data'), fx('idx'), '--axis', '1', '-q', '--json'], {
      cwd: dir,
    });
    expect(before.stderr).toBe('');
    expect(before.status).toBe(0);
    expect(before.stdout.toString()).toBe(after.stdout.toString());
    expect(JSON.parse(before.stdout.toString()).shape).toEqual([3, 2, 2, 4]);
  });
});

describe('tensorops shell niceties', () => {
  it('-V prints the version like --version', () => {
    for (const flag of ['-V', '--version']) {
      const r = tensorops([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout.toString()).toBe(`${VERSION}\n`);
    }
  });

  it('--help in a pipe is not wrapped: each example is one line to paste, each paragraph one line', () => {
    const help = tensorops(['inspect', '--help']).stdout.toString().split('\n');
    expect(help).toContain(
      "  tensorops inspect model-*.safetensors --filter 'model.layers.*.weight' --sort name",
    );
    const top = tensorops(['--help']).stdout.toString().split('\n');
    expect(top).toContain(
      "Tensors: FILE.npy, FILE.npz:NAME, FILE.safetensors:NAME, FILE.gguf:NAME. NAME is everything after the file's path, ':' and '/' included, so any name can be given: a.npz:x:0 is tensor x:0.",
    );
  });

  it('--help shows integer flags with number defaults', () => {
    const help = tensorops(['gather', '--help']).stdout.toString();
    expect(help).toMatch(/--axis\s+axis of DATA .*\(integer\)\s+\[default: 0\]/s);
    expect(help).not.toContain('[default: "0"]');
  });

  it('completion prints a bash script that completes flags and tensor names through the real CLI', async () => {
    const dir = tempDir();
    await writeTensorsFile(join(dir, 'model.safetensors'), [
      { name: 'model.layers.0.mlp.weight', data: tensorFrom('float32', [1], [1]) },
      { name: 'model.layers.1.mlp.weight', data: tensorFrom('float32', [1], [1]) },
    ]);
    const script = tensorops(['completion', 'bash']);
    expect(script.status).toBe(0);
    writeFileSync(join(dir, 'completion.bash'), script.stdout);
    // The script calls `tensorops` by name: a wrapper on PATH runs the built bin.
    writeFileSync(join(dir, 'tensorops'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const complete = (words: string[]): string[] => {
      const r = spawnSync(
        'bash',
        [
          '-c',
          `source completion.bash; COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _tensorops_yargs_completions; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { cwd: dir, env: { PATH: `${dir}:${process.env.PATH ?? ''}` } },
      );
      return r.stdout.toString().split('\n').filter(Boolean);
    };
    expect(complete(['tensorops', 'gather', '--ax'])).toEqual(['--axis']);
    expect(complete(['tensorops', 'gather-'])).toEqual([
      'gather-elements',
      'gather-nd',
      'gather-tree',
    ]);
    expect(complete(['tensorops', 'gather', 'd.npy', 'i.npy', '--oob', "''"])).toEqual([
      'error',
      'zero',
    ]);
    // bash breaks `model.safetensors:model.layers.1` at the `:` into three words.
    expect(complete(['tensorops', 'show', 'model.safetensors', ':', 'model.layers.1'])).toEqual([
      'model.layers.1.mlp.weight',
    ]);
    expect(complete(['tensorops', 'show', 'model.safetensors', ':'])).toEqual([
      ':model.layers.0.mlp.weight',
      ':model.layers.1.mlp.weight',
    ]);
  });

  it('completion zsh prints the zsh script, whatever $SHELL is; other shells are refused', () => {
    const zsh = tensorops(['completion', 'zsh'], { env: { SHELL: '/bin/bash' } });
    expect(zsh.status).toBe(0);
    expect(zsh.stdout.toString()).toMatch(/^#compdef tensorops\n/);
    const fromShell = tensorops(['completion'], { env: { SHELL: '/usr/bin/zsh' } });
    expect(fromShell.stdout.equals(zsh.stdout)).toBe(true);
    expectUsage(['completion', 'tcsh'], "completion takes bash, zsh or fish, got 'tcsh'");
  });

  it('a list of 300 tensor names is cut to a few, a count and where to see them all', async () => {
    const dir = tempDir();
    await writeTensorsFile(
      join(dir, 'many.npz'),
      Array.from({ length: 300 }, (_, i) => ({
        name: `model.layers.${i}.self_attn.q_proj.weight`,
        data: tensorFrom('float32', [1], [i]),
      })),
    );
    for (const [status, args] of [
      [1, ['gather', 'many.npz', fx('idx')]],
      [1, ['gather', 'many.npz:nope', fx('idx')]],
      [2, ['convert', 'many.npz', 'one.npy']],
    ] as const) {
      const r = tensorops(args, { cwd: dir });
      expect(r.status).toBe(status);
      const lines = r.stderr.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]?.length).toBeLessThanOrEqual(240);
      expect(r.stderr).toContain(
        "'model.layers.1.self_attn.q_proj.weight' and 298 more: tensorops inspect many.npz",
      );
      expect(r.stderr).not.toContain('model.layers.2.');
    }
    expect(listDir(dir)).toEqual(['many.npz']);
  });
});
