// One invocation, in the middle of the CLI's path: launch/bin.ts owns the process (streams,
// signals, exit code) -> run(argv, io) here parses (yargs, args/parser.ts; each command takes
// only the flags it declares) -> commands/*.ts return data and never render ->
// output/emit-result.ts picks the sink (-o file, .npy on stdout, --json, Ink view on a TTY) ->
// ui/*.tsx components take props and do no I/O. Ink and React are imported only on the TTY path
// (ui/render.ts): a pipeline run never loads them.
import { parseCommandLine } from '../args/parser.js';
import { ShortUsage } from '../args/short-usage.js';
import type { CommandSpec, ParsedArgs } from '../commands/command.js';
import { httpOptions } from '../input/remote.js';
import { emitResult } from '../output/emit-result.js';
import { outputOptions } from '../output/options.js';
import { type CliIO, isBrokenPipe, writeAll } from './cli-io.js';
import { EXIT_OK, EXIT_USAGE, errorLine, exitCodeFor } from './exit-codes.js';

/**
 * How the process owner may run a parsed command in another process instead (bin.ts: with huge
 * pages): that run's exit code, or undefined to run it in this one.
 */
export type HandOff = (
  spec: CommandSpec,
  args: ParsedArgs,
) => Promise<number | undefined> | undefined;

/** What the process owner gives a run besides its streams. */
export interface Launcher {
  /** The package's version, which --version prints. */
  readonly version: string;
  readonly handOff?: HandOff;
}

/** Runs one tensorops invocation and returns its exit code; bin.ts owns the process. */
export async function run(argv: readonly string[], io: CliIO, launcher: Launcher): Promise<number> {
  try {
    const parsed = await parseCommandLine(argv, io, launcher.version);
    if (parsed.kind === 'text') {
      await writeAll(io.stdout, parsed.text.endsWith('\n') ? parsed.text : `${parsed.text}\n`);
      return EXIT_OK;
    }
    const elsewhere = await launcher.handOff?.(parsed.spec, parsed.args);
    if (elsewhere !== undefined) return elsewhere;
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
