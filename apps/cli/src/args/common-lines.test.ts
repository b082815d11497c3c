import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandName } from '../commands/command.js';
import { COMMANDS } from '../commands/index.js';
import type { CliIO } from '../run/cli-io.js';
import { parseCommonLine } from './common-lines.js';
import { parseWithYargs } from './parser.js';

const quiet = { write: () => true };
const io: CliIO = { stdin: undefined as never, stdout: quiet, stderr: quiet, env: {} };

/** What yargs makes of a command line: the command and its arguments, or the usage error. */
async function byYargs(argv: readonly string[]): Promise<unknown> {
  try {
    const parsed = await parseWithYargs(argv, io, '0.0.0');
    return parsed.kind === 'run'
      ? { command: commandName(parsed.spec), args: parsed.args }
      : parsed;
  } catch (e) {
    return { error: (e as Error).message };
  }
}

// Words a command line is made of: operands (paths, `-`, numbers, odd text), every flag any
// command takes by its long name and alias, with and without `=`, and words yargs reads its own
// way (help, version, `--`, `--no-x`, negative numbers, empty words, unknown flags).
const flagWords = COMMANDS.flatMap((spec) =>
  Object.entries(spec.options).flatMap(([name, option]) => [
    `--${name}`,
    `--no-${name}`,
    ...[option.alias ?? []].flat().map((a) => (a.length === 1 ? `-${a}` : `--${a}`)),
    ...[option.choices ?? []].flat().map((c) => `--${name}=${c}`),
  ]),
);
const word = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('d.npy', 'i.npy', 'a.npz:x', 'out.npy', '-', '3', '0') },
  { weight: 6, arbitrary: fc.constantFrom(...flagWords) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...COMMANDS.flatMap((s) => Object.values(s.options))
        .flatMap((o) => [o.choices ?? []].flat())
        .map(String),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '--help',
      '-h',
      '--version',
      '-V',
      '--',
      '-1',
      '',
      '--axis=',
      '--axis=-1',
      '-o=x.npy',
      '-qo',
      '--unknown',
      'a=b',
      '--output.x',
      'completion',
      '__proto__',
      'true',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
);
// A command's own flags, each with a value it may take, in any order among its operands.
const ownLine = fc.constantFrom(...COMMANDS).chain((spec) =>
  fc
    .tuple(
      fc.array(fc.constantFrom('d.npy', 'i.npy', '-', '7'), { minLength: 1, maxLength: 4 }),
      fc.subarray(
        Object.entries(spec.options).map(([name, option]) =>
          option.type === 'boolean'
            ? [`--${name}`]
            : [`--${name}`, String([option.choices ?? []].flat()[0] ?? '-2')],
        ),
      ),
    )
    .chain(([operands, flags]) =>
      fc.shuffledSubarray([...operands, ...flags], { minLength: operands.length + flags.length }),
    )
    .map((parts) => [commandName(spec), ...parts.flat()] as const),
);
const anyLine = fc.tuple(
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...COMMANDS.map(commandName)) },
    fc.constantFrom('', '-q', 'gathr', 'completion', '--help'),
  ),
  fc.array(word, { maxLength: 7 }),
);
const commandLine = fc.oneof(
  anyLine.map(([command, words]) => [command, ...words]),
  ownLine.map((line) => [...line]),
);

describe('common command lines, read without yargs', () => {
  it('give exactly the arguments yargs gives, for every line they read', async () => {
    let read = 0;
    await fc.assert(
      fc.asyncProperty(commandLine, async (argv) => {
        const common = parseCommonLine(argv);
        if (common === undefined) return;
        read++;
        expect(await byYargs(argv)).toStrictEqual({
          command: commandName(common.spec),
          args: common.args,
        });
      }),
      { numRuns: 2000 },
    );
    // The property holds trivially for a reader that leaves every line to yargs.
    expect(read).toBeGreaterThan(200);
  });

  it('read the usual runs of every command', async () => {
    const lines = [
      ['gather', 'd.npy', 'i.npy', '-o', 'o.npy'],
      ['gather', 'd.npy', '-', '--axis', '1', '--batch-dims=1', '--oob', 'zero', '--json'],
      ['gather-elements', '-', 'i.npy', '--output', '-'],
      ['gather-nd', 'd.npy', 'i.npy', '-q', '--format', 'csv'],
      ['gather-tree', 's.npy', 'p.npy', 'm.npy', '--end-token', '1'],
      ['beams', 's.npy', 'p.npy', 'm.npy', '--end-token=1'],
      ['inspect', 'a.safetensors', 'b.npz', '--json', '--sort', 'name'],
      ['show', 'a.npz:x'],
      ['convert', 'a.npz', 'b.safetensors', '--force'],
    ];
    for (const argv of lines) {
      const common = parseCommonLine(argv);
      expect(common, argv.join(' ')).toBeDefined();
      expect(await byYargs(argv)).toStrictEqual({
        command: common && commandName(common.spec),
        args: common?.args,
      });
    }
  });

  it('leave to yargs a boolean flag followed by true or false, which yargs takes as its value', async () => {
    for (const argv of [
      ['gather', '--json', 'true'],
      ['gather', 'd.npy', 'i.npy', '--json', 'false'],
      ['inspect', '--json', 'true', 'a.npy'],
    ]) {
      expect(parseCommonLine(argv), argv.join(' ')).toBeUndefined();
    }
    const { args } = (await byYargs(['gather', 'd.npy', '--json', 'false'])) as {
      args: Record<string, unknown>;
    };
    expect([args.json, args.data, args.indices_file]).toEqual([false, 'd.npy', undefined]);
  });
});
