// yargs renders a command's whole help text before it runs the command (it keeps it in case the
// command's handler asks for it), and reads the terminal's width for that render. Our commands
// run after the parse and never ask, so the render is start-up work for nothing, and the width
// is read from stdout, which sets up its stream (and loads Node's stream classes) in a run that
// may print nothing there. yargs has no public way to skip that render, nor to give the width
// only when help is shown (`.wrap(n)` wants it up front): this module is the one place that
// reaches into yargs' usage instance for both. yargs-help.test.ts fails if yargs changes either.

import type { Argv } from 'yargs';

/** The two methods of yargs' usage instance replaced here. */
export interface YargsUsage {
  cacheHelpMessage(): void;
  getWrap(): number | null;
}

/** yargs' usage instance of `parser`: not in its typings, and not in its public API. */
export function usageOf(parser: Argv): YargsUsage {
  const internal = parser as unknown as {
    getInternalMethods(): { getUsageInstance(): YargsUsage };
  };
  return internal.getInternalMethods().getUsageInstance();
}

/**
 * `parser` renders help only to show it, `width()` columns wide (null: not wrapped), a width
 * asked for only then.
 */
export function renderHelpOnlyWhenShown(parser: Argv, width: () => number | null): void {
  const usage = usageOf(parser);
  usage.cacheHelpMessage = () => {};
  usage.getWrap = width;
}
