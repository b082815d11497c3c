import type { CommandSpec } from './command.js';
import { gatherCommand } from './gather.js';

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [gatherCommand];
