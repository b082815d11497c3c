import { type BeamSequences, beamsToJson, formatTokens } from '@tensorops/gather-tree';
import { parseOutputRef } from '@tensorops/io';
import { writeOutputPath } from '@tensorops/io/node';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';
import { chooseFormat, isTextFormat } from '../format/output-format.js';
import { type CliIO, writeAll } from '../run/cli-io.js';
import type { OutputOptions } from './options.js';

/**
 * Decoded beams are token sequences of different lengths, so only the text formats hold them:
 * json one document; csv / tsv one line per beam (tokens separated by the delimiter, batch-major
 * order). Piped without a format: one line per beam, tokens separated by spaces, so `head`, `cut`
 * and `paste` work; on a terminal a readable table.
 */
export async function emitBeams(
  beams: BeamSequences,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  const { output } = options;
  const path = output === undefined || isStdio(output) ? undefined : parseOutputRef(output).path;
  const format = chooseFormat({ format: options.format, json: options.json, path });
  if (format !== undefined && !isTextFormat(format)) {
    throw usageError(
      `beams are token sequences of different lengths and .${format} cannot hold them; write json, csv or tsv (gather-tree writes the [T, B, K] tensor)`,
    );
  }
  const text =
    format === 'json'
      ? `${beamsToJson(beams)}\n`
      : format !== undefined
        ? beamLines(beams, format === 'csv' ? ',' : '\t')
        : io.stdout.isTTY && output === undefined
          ? beamsTable(beams)
          : beams.beams.map((b) => `${formatTokens(b.tokens)}\n`).join('');
  if (path === undefined) await writeAll(io.stdout, text);
  else await writeOutputPath(path, new TextEncoder().encode(text));
}

function beamLines(beams: BeamSequences, delimiter: string): string {
  return beams.beams.map((b) => `${b.tokens.join(delimiter)}\n`).join('');
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
