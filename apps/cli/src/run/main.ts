import { parseCommandLine } from '../args/parser.js';
import { ShortUsage } from '../args/short-usage.js';
import { httpOptions } from '../input/remote.js';
import { emitResult } from '../output/emit-result.js';
import { outputOptions } from '../output/options.js';
import { type CliIO, isBrokenPipe, writeAll } from './cli-io.js';
import { EXIT_OK, EXIT_USAGE, errorLine, exitCodeFor } from './exit-codes.js';

/** Runs one tensorops invocation and returns its exit code; bin.ts owns the process. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const parsed = await parseCommandLine(argv, io);
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
