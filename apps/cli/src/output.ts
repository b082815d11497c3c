import type { Tensor } from '@tensorops/core';
import { encodeNpy } from '@tensorops/io';
import { writeTensorFile } from '@tensorops/io/node';
import { isStdio } from './args.js';
import { type CliIO, writeAll } from './cli-io.js';

export interface OutputOptions {
  /** -o/--output: a path, `-` for stdout, or undefined. */
  readonly output?: string | undefined;
  readonly json: boolean;
  readonly quiet: boolean;
}

/**
 * Picks the sink for a tensor result: -o file (atomic), .npy on stdout when piped or with `-o -`,
 * the --json document, or a readable view on a terminal (never binary on a TTY).
 */
export async function emitTensor(
  t: Tensor,
  label: string,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  if (options.output !== undefined && !isStdio(options.output)) {
    await writeTensorFile(options.output, t);
    return;
  }
  if (options.json) {
    const { tensorJson } = await import('./format/tensor-json.js');
    await writeAll(io.stdout, tensorJson(t));
    return;
  }
  if (options.output !== undefined || !io.stdout.isTTY) {
    await writeAll(io.stdout, encodeNpy(t));
    return;
  }
  const { tensorSummary } = await import('./format/summary.js');
  await writeAll(io.stdout, tensorSummary(t, label));
}
