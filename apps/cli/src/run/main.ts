import { readFileSync } from 'node:fs';
import { TensorOpsError } from '@tensorops/core';
import yargs, { type Argv } from 'yargs';
import { protectDashes, typedArgs, typedMessage, usageError } from '../args/args.js';
import { closest, usageErrorOf } from '../args/usage-errors.js';
import type { CommandSpec, ParsedArgs } from '../commands/command.js';
import { COMMANDS } from '../commands/index.js';
import { httpOptions } from '../input/remote.js';
import { emitResult } from '../output/emit-result.js';
import { outputOptions } from '../output/options.js';
import { type CliIO, isBrokenPipe, writeAll } from './cli-io.js';
import { EXIT_OK, EXIT_USAGE, errorLine, exitCodeFor } from './exit-codes.js';

// import.meta.url is the bundle's own file in dist/ (scripts/bundle.mjs): package.json is one up.
const VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;

type Parsed =
  | { readonly kind: 'run'; readonly spec: CommandSpec; readonly args: ParsedArgs }
  | { readonly kind: 'text'; readonly text: string };

/** Runs one tensorops invocation and returns its exit code; bin.ts owns the process. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const parsed = await parse(argv, io);
    if (parsed.kind === 'text') {
      await writeAll(io.stdout, parsed.text.endsWith('\n') ? parsed.text : `${parsed.text}\n`);
      return EXIT_OK;
    }
    // io's own properties stay behind it, unevaluated: a spread would call the stdin getter, and
    // setting up process.stdin turns a piped descriptor non-blocking before a reader can use it.
    const result = await parsed.spec.run(
      parsed.args,
      Object.assign(Object.create(io) as CliIO, { http: httpOptions(parsed.args, io) }),
    );
    await emitResult(result, outputOptions(parsed.args), io);
    return EXIT_OK;
  } catch (error) {
    if (isBrokenPipe(error)) return EXIT_OK;
    if (error instanceof ShortUsage) {
      io.stderr.write(`${error.message}\n`);
      return EXIT_USAGE;
    }
    io.stderr.write(errorLine(error, io.env.TENSOROPS_DEBUG === '1'));
    return exitCodeFor(error);
  }
}

function buildParser(io: CliIO): Argv {
  let parser = yargs()
    .scriptName('tensorops')
    .usage(
      '$0 <command> [options]\n\nRun tensor gather operators on .npy, .npz and .safetensors files, from the shell.',
    )
    .option('output', {
      alias: 'o',
      type: 'string',
      describe:
        'write the result to this file (- for stdout); a regular file is replaced atomically, a device, FIFO or /dev/fd/N is written in place',
    })
    .option('format', {
      type: 'string',
      describe:
        'npy, npz, safetensors, json, csv or tsv (default: the -o extension, .txt is tsv; .npy on a pipe)',
    })
    .option('json', { type: 'boolean', describe: 'the same as --format json' })
    .option('force', {
      type: 'boolean',
      describe: '-o FILE.npz:NAME / FILE.safetensors:NAME may replace a file holding other tensors',
    })
    .option('header', {
      type: 'boolean',
      describe: 'csv/tsv: a first line "# dtype D, shape [..]" (numpy.loadtxt skips it)',
    })
    .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing but the result' })
    .option('color', {
      type: 'boolean',
      default: true,
      describe: 'colour on a terminal (--no-color: off)',
    })
    // Integer flags keep the text as typed, so integerOption can refuse 1.5 or 0x10 itself.
    .parserConfiguration({ 'parse-numbers': false })
    .option('http-header', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe:
        "for http(s):// inputs: send 'Name: value' (repeatable; also TENSOROPS_HTTP_HEADERS, one per line); values are never printed",
    })
    .option('max-download', {
      type: 'string',
      requiresArg: true,
      describe:
        'for http(s):// inputs: bytes a server that ignores Range requests may send whole (default 0)',
    })
    .option('timeout', {
      type: 'string',
      requiresArg: true,
      describe:
        'for http(s):// inputs: seconds the command may spend on them, every request, retry and redirect included (default 60; also TENSOROPS_TIMEOUT)',
    })
    .strict()
    .recommendCommands()
    .demandCommand(1, 'no command given')
    .exitProcess(false)
    .version(VERSION)
    .alias('V', 'version')
    .completion(
      'completion',
      'print a bash or zsh completion script (tensorops completion [bash|zsh])',
    )
    .help()
    .alias('h', 'help')
    .epilogue(
      [
        'Tensors: FILE.npy, FILE.npz:NAME, FILE.safetensors:NAME. NAME is everything after the',
        "file's path, ':' and '/' included, so any name can be given: a.npz:x:0 is tensor x:0.",
        '',
        'Exit codes: 0 ok, 1 data or runtime error, 2 usage error.',
      ].join('\n'),
    );
  for (const spec of COMMANDS) parser = parser.command(spec.command, spec.describe, spec.builder);
  renderHelpOnlyWhenAsked(parser, io);
  return parser;
}

/**
 * yargs renders the whole help text before it runs a command, in case the command's handler asks
 * for it later; ours never does (commands run after the parse), and the render costs a sizeable
 * part of a small command's start-up (docs/performance.md). `--help` still renders it, as wide as
 * the terminal (at most 100 columns), a width asked for only then: looking at stdout sets up its
 * stream, which loads Node's stream classes (milliseconds of start-up) in a run that may print
 * nothing there.
 */
function renderHelpOnlyWhenAsked(parser: Argv, io: CliIO): void {
  const internal = parser as unknown as {
    getInternalMethods(): {
      getUsageInstance(): { cacheHelpMessage(): void; getWrap(): number | null };
    };
  };
  const usage = internal.getInternalMethods().getUsageInstance();
  usage.cacheHelpMessage = () => {};
  usage.getWrap = () => Math.min(100, io.stdout.columns || 80);
}

function parse(argv: readonly string[], io: CliIO): Promise<Parsed> {
  if (argv.length === 0) return Promise.reject(new ShortUsage());
  if (argv[0] === 'completion') return completionScript(argv.slice(1), io);
  const args = protectDashes(argv);
  const parser = buildParser(io);
  if (argv[0] === COMPLETIONS_FLAG) return completions(parser, args);
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
        const context = { argv: args, flags: knownFlags(parser, spec), operands: operands(argv) };
        reject(usageErrorOf(typedMessage(error.message), context));
      } else if (output) resolve({ kind: 'text', text: output });
      else if (spec) {
        const repeated = repeatedFlag(parser, parsedArgs);
        if (repeated) reject(usageError(`--${repeated} is given more than once; give it once`));
        else resolve({ kind: 'run', spec, args: typedArgs(parsedArgs) });
      } else reject(new ShortUsage());
    });
  });
}

/** The completion script runs `tensorops --get-yargs-completions tensorops WORDS...`. */
const COMPLETIONS_FLAG = '--get-yargs-completions';

/**
 * yargs logs the candidates into the parse output, for a command only after its builder has run
 * again on a later turn of the event loop; the last output once the loop has turned holds them.
 */
async function completions(parser: Argv, args: readonly string[]): Promise<Parsed> {
  let text = '';
  parser.parse([...args], {}, (_error, _args, output) => {
    if (output) text = output;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { kind: 'text', text };
}

/**
 * `tensorops completion [bash|zsh]`: yargs' script for the shell named, else for $SHELL. yargs
 * picks the template from the environment when it is built, so the shell is set for that moment.
 */
async function completionScript(rest: readonly string[], io: CliIO): Promise<Parsed> {
  const shell = rest[0] ?? (/zsh/.test(io.env.SHELL ?? '') ? 'zsh' : 'bash');
  if (rest.length > 1 || (shell !== 'bash' && shell !== 'zsh')) {
    throw usageError(`completion takes bash or zsh, got '${rest.join(' ')}'`);
  }
  const saved = { SHELL: process.env.SHELL, ZSH_NAME: process.env.ZSH_NAME };
  process.env.SHELL = `/bin/${shell}`;
  delete process.env.ZSH_NAME;
  try {
    const parser = buildParser(io);
    const text = await new Promise<string>((resolve) => {
      parser.parse(['completion'], {}, (_error, _args, output) => resolve(output));
    });
    return { kind: 'text', text };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** The words typed after `--`: operands, whatever they look like. */
function operands(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? [] : argv.slice(end + 1);
}

/** Long flag names the command (or the top level) accepts, for "did you mean". */
function knownFlags(parser: Argv, spec: CommandSpec | undefined): string[] {
  const positionals = new Set(spec?.command.match(/[a-z_]+(?=[>\]])/g) ?? []);
  return Object.keys(yargsOptions(parser).key).filter(
    (k) => k.length > 1 && !/[A-Z]/.test(k) && !positionals.has(k),
  );
}

/** yargs API its typings leave out: the options known once the command's builder ran. */
function yargsOptions(parser: Argv): { key: object; array: string[] } {
  return (parser as unknown as { getOptions(): { key: object; array: string[] } }).getOptions();
}

/** A single-valued flag typed twice (`-o a.npy -o b.npy`): yargs makes it an array. */
function repeatedFlag(parser: Argv, args: Readonly<Record<string, unknown>>): string | undefined {
  const lists = new Set(yargsOptions(parser).array);
  const names = Object.keys(args).filter(
    (k) => k !== '_' && Array.isArray(args[k]) && !lists.has(k),
  );
  return names.filter((k) => !/[A-Z]/.test(k)).sort((a, b) => b.length - a.length)[0];
}

function commandName(spec: CommandSpec): string {
  return spec.command.split(' ')[0] ?? spec.command;
}

/** `tensorops` alone: a short usage on stderr, exit 2. */
class ShortUsage extends TensorOpsError {
  constructor() {
    const width = Math.max(...COMMANDS.map((c) => c.command.length));
    const lines = COMMANDS.map((c) => `  tensorops ${c.command.padEnd(width)}  ${c.describe}`);
    super(
      'E_USAGE',
      [
        'usage: tensorops <command> [options]',
        '',
        ...lines,
        '',
        "Run 'tensorops <command> --help' for options and examples.",
      ].join('\n'),
    );
  }
}
