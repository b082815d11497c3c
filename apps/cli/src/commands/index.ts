// commands/: one file per command; each declares its operands and flags, computes, and returns
// its result to the output (commands never render).
// command.ts         what a command is (CommandSpec) and what it returns (CommandResult)
// gather.ts          gather: slices along an axis (numpy take, ONNX Gather)
// gather-elements.ts gather-elements: one element per index (np.take_along_axis)
// gather-nd.ts       gather-nd: slices at index tuples (ONNX GatherND)
// gather-tree.ts     gather-tree: beam-search parents back-tracked into beams
// beams.ts           beams: gather-tree, then each beam as a token sequence
// inspect.ts         inspect: the tensors of files, from their headers (or every byte)
// show.ts            show: one stored tensor
// convert.ts         convert: between formats, bit for bit, or to text
// oob-flag.ts        --oob, shared by the three gathers
// beam-inputs.ts     the operands and --end-token shared by gather-tree and beams
// index.ts           this list of every command

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
