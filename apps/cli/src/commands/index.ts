import { beamsCommand } from './beams.js';
import type { CommandSpec } from './command.js';
import { convertCommand } from './convert.js';
import { gatherCommand } from './gather.js';
import { gatherElementsCommand } from './gather-elements.js';
import { gatherNDCommand } from './gather-nd.js';
import { gatherTreeCommand } from './gather-tree.js';
import { inspectCommand } from './inspect.js';
import { showCommand } from './show.js';

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  gatherCommand,
  gatherElementsCommand,
  gatherNDCommand,
  gatherTreeCommand,
  beamsCommand,
  inspectCommand,
  showCommand,
  convertCommand,
];
