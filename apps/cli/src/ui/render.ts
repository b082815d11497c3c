// The one door to the Ink views. show-tensor.ts and output/inspect.ts import this module lazily,
// and this module imports Ink, React and the components lazily in turn, so that colour can be
// switched off in the environment before chalk (inside Ink) reads it: chalk ignores NO_COLOR and
// decides its colour level once, when it is first imported.
import type { Tensor } from '@tensorops/core';
import { type CliStream, writeAll } from '../run/cli-io.js';
import { resolveColumns } from './layout.js';
import type { TensorEntry } from './tensor-table.js';

export type { TensorEntry } from './tensor-table.js';

export interface TerminalStyle {
  readonly color: boolean;
  /** TERM=dumb: ASCII glyphs for the histogram bars. */
  readonly ascii: boolean;
}

/**
 * Colour is on unless --no-color (`flag` false), NO_COLOR is set to anything non-empty
 * (no-color.org), TERM=dumb, or FORCE_COLOR=0.
 */
export function terminalStyle(
  env: Readonly<Record<string, string | undefined>>,
  flag = true,
): TerminalStyle {
  const dumb = env.TERM === 'dumb';
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return { color: flag && !noColor && !dumb && env.FORCE_COLOR !== '0', ascii: dumb };
}

export interface RenderOptions {
  /** Where the frame goes: the terminal's stdout. */
  readonly stdout: CliStream;
  /** The run's environment (NO_COLOR, TERM, FORCE_COLOR). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The --color flag: false for --no-color. */
  readonly color?: boolean | undefined;
  /** Terminal width; defaults to stdout.columns. 0 or undefined (a 0-column pty) lays out for 80. */
  readonly columns?: number | undefined;
  /**
   * The environment chalk reads when Ink is first imported; FORCE_COLOR=0 is set here when
   * colour is off. Defaults to process.env (tests pass their own).
   */
  readonly processEnv?: Record<string, string | undefined>;
}

/** Renders the view of one result once, writes it and a newline to stdout, and returns. */
export async function renderTensorView(
  t: Tensor,
  label: string,
  options: RenderOptions,
): Promise<void> {
  const style = prepare(options);
  const [{ createElement }, { TensorView }] = await Promise.all([
    import('react'),
    import('./tensor-view.js'),
  ]);
  const columns = resolveColumns(options.columns ?? options.stdout.columns);
  await emit(
    createElement(TensorView, { tensor: t, label, columns, ...style }),
    columns,
    options.stdout,
  );
}

/** Renders the table of a file's tensors (for `inspect`) once, with totals. */
export async function renderTensorTable(
  entries: readonly TensorEntry[],
  options: RenderOptions & { readonly title?: string | undefined },
): Promise<void> {
  const style = prepare(options);
  const [{ createElement }, { TensorTable }] = await Promise.all([
    import('react'),
    import('./tensor-table.js'),
  ]);
  const columns = resolveColumns(options.columns ?? options.stdout.columns);
  await emit(
    createElement(TensorTable, { entries, title: options.title, columns, color: style.color }),
    columns,
    options.stdout,
  );
}

function prepare(options: RenderOptions): TerminalStyle {
  const style = terminalStyle(options.env, options.color ?? true);
  if (!style.color) (options.processEnv ?? process.env).FORCE_COLOR = '0';
  return style;
}

// renderToString, not render(): a one-shot frame needs no terminal session (no cursor hiding, raw
// stdin, resize listener or console patching), works on any writable stream, and cannot leave
// the event loop waiting for an unmount.
async function emit(
  node: import('react').ReactElement,
  columns: number,
  stdout: CliStream,
): Promise<void> {
  const { renderToString } = await import('ink');
  await writeAll(stdout, `${renderToString(node, { columns })}\n`);
}
