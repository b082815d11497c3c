import { type BeamSequences, beamsToJson, formatTokens } from '@tensorops/gather-tree';
import { usageError } from './args.js';
import { type CliIO, writeAll } from './cli-io.js';
import type { OutputOptions } from './output.js';

/**
 * Decoded beams: `--json` one document; piped, one line per beam (tokens separated by spaces,
 * batch-major order) so `head`, `cut` and `paste` work; on a terminal a readable table.
 */
export async function emitBeams(
  beams: BeamSequences,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  if (options.output !== undefined)
    throw usageError('beams prints to stdout; -o is not used (use gather-tree -o for the tensor)');
  if (options.json) {
    await writeAll(io.stdout, `${beamsToJson(beams)}\n`);
    return;
  }
  if (!io.stdout.isTTY) {
    await writeAll(io.stdout, beams.beams.map((b) => `${formatTokens(b.tokens)}\n`).join(''));
    return;
  }
  await writeAll(io.stdout, beamsTable(beams));
}

/** The terminal table: one row per beam with its batch, beam, length and tokens. */
export function beamsTable(beams: BeamSequences): string {
  const header = `${beams.batchSize} batch x ${beams.beamWidth} beams, max ${beams.maxTime} steps, end token ${beams.endToken}`;
  const rows = beams.beams.map((b) => [
    String(b.batch),
    String(b.beam),
    String(b.length),
    formatTokens(b.tokens),
  ]);
  const titles = ['batch', 'beam', 'length', 'tokens'];
  const widths = titles.map((t, i) =>
    Math.max(t.length, ...rows.map((r) => (r[i] as string).length)),
  );
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < 3 ? c.padStart(widths[i] as number) : c))
      .join('  ')
      .trimEnd();
  return `${header}\n${line(titles)}\n${rows.map(line).join('\n')}\n`;
}
