import { collectStream } from '@tensorops/io/node';
import { isTensorStream } from '@tensorops/io/node/internal';
import type { Entry } from '../output/entry.js';
import type { OutputOptions } from '../output/options.js';
import type { CliIO } from '../run/cli-io.js';

/** The readable view of one tensor on a terminal; a stream is collected first. */
export async function showOnTerminal(
  entry: Entry,
  label: string,
  options: OutputOptions,
  io: CliIO,
): Promise<void> {
  const t = isTensorStream(entry.data) ? await collectStream(entry.data) : entry.data;
  const { renderTensorView } = await import('./render.js');
  await renderTensorView(t, label, { stdout: io.stdout, env: io.env, color: options.color });
}
