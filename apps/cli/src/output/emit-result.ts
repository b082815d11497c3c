import type { CommandResult, PipedAs } from '../commands/command.js';
import type { CliIO } from '../run/cli-io.js';
import { emitInspect } from './inspect.js';
import type { OutputOptions } from './options.js';
import { startProgress, tracked } from './progress.js';
import { emitEntries } from './tensor-sink.js';

/** Routes any command result to its sink; releases the result's input files afterwards. */
export async function emitResult(
  result: CommandResult,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  switch (result.kind) {
    case 'tensor':
      return emitOne(result.tensor, result, options, io);
    case 'inspect':
      await emitInspect(result.reports, options, io);
      // After the report: stdout stays one document, and the line is the last word of the run.
      if (!options.quiet)
        for (const line of result.verified) io.stderr.write(`tensorops: ${line}\n`);
      return;
    case 'beams': {
      const { emitBeams } = await import('./beams.js');
      return emitBeams(result.beams, options, io);
    }
    case 'stream': {
      const progress = startProgress(result.label, result.stream.nbytes, options, io);
      try {
        return await emitOne(tracked(result.stream, progress), result, options, io);
      } finally {
        progress.finish();
        await result.dispose();
      }
    }
    case 'tensors': {
      const total = result.entries.reduce((n, e) => n + e.data.nbytes, 0);
      const progress = startProgress(result.label, total, options, io);
      const entries = result.entries.map((e) => ({ ...e, data: tracked(e.data, progress) }));
      try {
        return await emitEntries(entries, result, options, io);
      } finally {
        progress.finish();
        await result.dispose();
      }
    }
  }
}

/** One unnamed tensor or stream, written where the options say. */
function emitOne(
  data: Parameters<typeof emitEntries>[0][number]['data'],
  { label, piped }: { readonly label: string; readonly piped?: PipedAs },
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  const destination = { output: options.output, metadata: null, compress: false, label, piped };
  return emitEntries([{ name: undefined, data }], destination, options, io);
}
