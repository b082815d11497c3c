import { TensorOpsError } from '@tensorops/core';
import { COMMANDS } from '../commands/index.js';

/** `tensorops` alone: a short usage on stderr, exit 2. */
export class ShortUsage extends TensorOpsError {
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
