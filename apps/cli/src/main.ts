import { readFileSync } from 'node:fs';
import { TensorOpsError } from '@tensorops/core';
import yargs, { type Argv } from 'yargs';
import { protectDashes, usageError } from './args.js';
import { type CliIO, writeAll } from './cli-io.js';
import type { CommandSpec, ParsedArgs } from './commands/command.js';
import { COMMANDS } from './commands/index.js';
import { EXIT_OK, EXIT_USAGE, errorLine, exitCodeFor } from './exit-codes.js';
import { emitResult } from './output.js';

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
    const result = await parsed.spec.run(parsed.args, io);
    await emitResult(
      result,
      {
        output: parsed.args.output as string | undefined,
        json: parsed.args.json === true,
        quiet: parsed.args.quiet === true,
        color: parsed.args.color !== false,
      },
      io,
    );
    return EXIT_OK;
  } catch (error) {
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
      describe: 'write the result to this file (- for stdout)',
    })
    .option('json', { type: 'boolean', describe: 'print the result as one JSON document' })
    .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing but the result' })
    .option('color', {
      type: 'boolean',
      default: true,
      describe: 'colour on a terminal (--no-color: off)',
    })
    .strict()
    .recommendCommands()
    .demandCommand(1, 'no command given')
    .exitProcess(false)
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .epilogue('Exit codes: 0 ok, 1 data or runtime error, 2 usage error.')
    .wrap(Math.min(100, io.stdout.columns || 80));
  for (const spec of COMMANDS) parser = parser.command(spec.command, spec.describe, spec.builder);
  return parser;
}

function parse(argv: readonly string[], io: CliIO): Promise<Parsed> {
  if (argv.length === 0) return Promise.reject(new ShortUsage());
  const args = protectDashes(argv);
  const parser = buildParser(io);
  return new Promise((resolve, reject) => {
    parser.parse(args, {}, (error, parsedArgs, output) => {
      const name = String(parsedArgs._[0] ?? '');
      const spec = COMMANDS.find((c) => commandName(c) === name);
      if (!spec && name !== '' && !name.startsWith('-')) {
        const suggestion = /Did you mean (\S+)\?/.exec(output)?.[1];
        const hint = suggestion
          ? `; did you mean ${suggestion}?`
          : `; commands: ${COMMANDS.map(commandName).join(', ')}`;
        reject(usageError(`unknown command '${name}'${hint}`));
      } else if (error) reject(usageError(firstLine(error.message)));
      else if (output) resolve({ kind: 'text', text: output });
      else if (spec) resolve({ kind: 'run', spec, args: parsedArgs });
      else reject(new ShortUsage());
    });
  });
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

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
