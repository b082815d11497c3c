import type { Argv, Options } from 'yargs';
import { type CommandSpec, commandName, type ParsedArgs } from '../commands/command.js';
import { COMMANDS } from '../commands/index.js';
import type { CliIO } from '../run/cli-io.js';
import { parseCommonLine } from './common-lines.js';
import { COMPLETIONS_FLAG, completionScript, completions } from './completion.js';
import { protectDashes, typedArgs, typedMessage } from './dashes.js';
import { ShortUsage } from './short-usage.js';
import { closest, usageError, usageErrorOf } from './usage-errors.js';
import { renderHelpOnlyWhenShown } from './yargs-help.js';

/** A command line: a command to run with its arguments, or text to print (help, version, completion). */
export type Parsed =
  | { readonly kind: 'run'; readonly spec: CommandSpec; readonly args: ParsedArgs }
  | { readonly kind: 'text'; readonly text: string };

/**
 * The CLI's parser: every command with the flags it takes; strict, so any other flag is refused.
 * yargs is loaded here, on the first line common-lines.ts leaves to it.
 */
async function buildParser(io: CliIO, version: string): Promise<Argv> {
  const { default: yargs } = await import('yargs');
  let parser = yargs()
    .scriptName('tensorops')
    .usage(
      '$0 <command> [options]\n\nRun tensor gather operators on .npy, .npz and .safetensors files, from the shell.',
    )
    // Integer flags keep the text as typed, so integerOption can refuse 1.5 or 0x10 itself.
    .parserConfiguration({ 'parse-numbers': false })
    .options(BOOLEAN_FLAGS_BEFORE_THE_COMMAND)
    .strict()
    .recommendCommands()
    .demandCommand(1, 'no command given')
    .exitProcess(false)
    .version(version)
    .alias('V', 'version')
    .completion(
      'completion',
      'print a bash, zsh or fish completion script (tensorops completion [bash|zsh|fish])',
    )
    .help()
    .alias('h', 'help')
    .epilogue(
      [
        // One line per paragraph: yargs wraps it to the width, between words.
        "Tensors: FILE.npy, FILE.npz:NAME, FILE.safetensors:NAME, FILE.gguf:NAME. NAME is everything after the file's path, ':' and '/' included, so any name can be given: a.npz:x:0 is tensor x:0.",
        '',
        'Exit codes: 0 ok, 1 data or runtime error, 2 usage error.',
      ].join('\n'),
    );
  for (const spec of COMMANDS) {
    parser = parser.command(spec.command, spec.describe, (y) =>
      spec.builder(y.options(spec.options)),
    );
  }
  // Help is as wide as the terminal, at most 100 columns. In a pipe it is not wrapped: an
  // example stays one line that can be pasted, and the reader (a pager, an editor) wraps.
  renderHelpOnlyWhenShown(parser, () =>
    io.stdout.isTTY ? Math.min(100, io.stdout.columns || 80) : null,
  );
  return parser;
}

/** What a command line asks for (`version`: what --version prints); a usage error is thrown as one (exit 2). */
export function parseCommandLine(
  argv: readonly string[],
  io: CliIO,
  version: string,
): Promise<Parsed> {
  const common = parseCommonLine(argv);
  if (common !== undefined) return Promise.resolve({ kind: 'run', ...common });
  return parseWithYargs(argv, io, version);
}

/** {@link parseCommandLine} by yargs alone, for any command line. */
export async function parseWithYargs(
  argv: readonly string[],
  io: CliIO,
  version: string,
): Promise<Parsed> {
  if (argv.length === 0) throw new ShortUsage();
  if (argv[0] === 'completion') {
    return { kind: 'text', text: completionScript(argv.slice(1), io.env) };
  }
  const args = protectDashes(argv);
  const parser = await buildParser(io, version);
  if (argv[0] === COMPLETIONS_FLAG) {
    return { kind: 'text', text: await completions(parser, args, io.env) };
  }
  return new Promise((resolve, reject) => {
    parser.parse(args, {}, (error, parsedArgs, output) => {
      const name = typedMessage(String(parsedArgs._[0] ?? ''));
      const spec = COMMANDS.find((c) => commandName(c) === name);
      if (!spec && name !== '' && !name.startsWith('-')) {
        // yargs suggests for the word it saw; after `--` that is hidden (args.ts).
        const suggestion =
          /Did you mean (\S+)\?/.exec(output)?.[1] ?? closest(name, COMMANDS.map(commandName));
        const hint = suggestion
          ? `; did you mean ${suggestion}?`
          : `; commands: ${COMMANDS.map(commandName).join(', ')}`;
        reject(usageError(`unknown command '${name}'${hint}`));
      } else if (error) {
        const context = {
          argv: args,
          flags: knownFlags(spec),
          operands: operands(argv),
          ...(spec === undefined ? {} : { command: spec, otherFlags: FLAGS_OF_ANY_COMMAND }),
        };
        reject(usageErrorOf(typedMessage(error.message), context));
      } else if (output) resolve({ kind: 'text', text: output });
      else if (spec) {
        const repeated = repeatedFlag(spec, parsedArgs);
        if (repeated) reject(usageError(`--${repeated} is given more than once; give it once`));
        else resolve({ kind: 'run', spec, args: typedArgs(parsedArgs) });
      } else reject(new ShortUsage());
    });
  });
}

/** The words typed after `--`: operands, whatever they look like. */
function operands(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? [] : argv.slice(end + 1);
}

/** Flags every run takes, whatever the command. */
const COMMON_FLAGS = ['version', 'help'];

/** Long flag names the command (or the top level) accepts, for "did you mean". */
function knownFlags(spec: CommandSpec | undefined): string[] {
  return [...Object.keys(spec?.options ?? {}), ...COMMON_FLAGS];
}

/**
 * The boolean flags of every command, known to the top level too (hidden, and not passed on to a
 * command, whose own flags decide): typed before the command's name (`tensorops -q gather ...`),
 * one still reads as a flag instead of taking that name as its value.
 */
const BOOLEAN_FLAGS_BEFORE_THE_COMMAND: Record<string, Options> = Object.fromEntries(
  COMMANDS.flatMap((spec) => Object.entries(spec.options))
    .filter(([, option]) => option.type === 'boolean')
    .map(([flag, option]) => [
      flag,
      {
        type: 'boolean',
        hidden: true,
        global: false,
        ...(option.alias ? { alias: option.alias } : {}),
      },
    ]),
);

/** Each flag some command takes, by its long name and by its alias, mapped to its long name. */
const FLAGS_OF_ANY_COMMAND: ReadonlyMap<string, string> = new Map(
  COMMANDS.flatMap((spec) =>
    Object.entries(spec.options).flatMap(([flag, option]) =>
      [flag, ...[option.alias ?? []].flat()].map((name): [string, string] => [name, flag]),
    ),
  ),
);

/** A single-valued flag typed twice (`-o a.npy -o b.npy`): yargs makes it an array. */
function repeatedFlag(
  spec: CommandSpec,
  args: Readonly<Record<string, unknown>>,
): string | undefined {
  const lists = new Set([
    ...Object.keys(spec.options).filter((k) => spec.options[k]?.array === true),
    // A variadic positional (`<files..>`).
    ...(spec.command.match(/[a-z_]+(?=\.\.[>\]])/g) ?? []),
  ]);
  const names = Object.keys(args).filter(
    (k) => k !== '_' && Array.isArray(args[k]) && !lists.has(k),
  );
  return names.filter((k) => !/[A-Z]/.test(k)).sort((a, b) => b.length - a.length)[0];
}
