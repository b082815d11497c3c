import type { Argv } from 'yargs';
import { usageError } from '../args/args.js';
import { loadIndices } from '../input/index-inputs.js';
import { loadInputs } from '../input/inputs.js';
import { type CommandSpec, examples, type ParsedArgs } from './command.js';

/** Loaded on use: the bundle keeps it out of the start-up path of every other command. */
function loadGatherTree() {
  return import('@tensorops/gather-tree');
}

function withBeamInputs(y: Argv): Argv {
  return y
    .positional('step_ids', {
      type: 'string',
      describe:
        'ids per step [MAX_TIME, BATCH, BEAM]: a tensor reference, a .txt/.csv/.tsv/.json file, or -',
    })
    .positional('parent_ids', {
      type: 'string',
      describe: 'parent beam per step [MAX_TIME, BATCH, BEAM]',
    })
    .positional('max_seq_len', { type: 'string', describe: 'length per batch entry [BATCH]' })
    .option('end-token', {
      type: 'string',
      describe: 'the end-of-sequence id',
      demandOption: true,
    });
}

/** `--end-token` as the exact value the user typed: an integer beyond 2^53 stays a bigint. */
export function endTokenOption(value: unknown): number | bigint {
  const text = String(value ?? '').trim();
  if (/^[+-]?\d+$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  const n = Number(text);
  if (text === '' || Number.isNaN(n))
    throw usageError(`--end-token takes a number, got '${value}'`);
  return n;
}

async function loadBeamInputs(args: ParsedArgs, io: Parameters<CommandSpec['run']>[1]) {
  const refs = [String(args.step_ids), String(args.parent_ids), String(args.max_seq_len)] as const;
  return loadInputs(refs, io, loadIndices);
}

export const gatherTreeCommand: CommandSpec = {
  command: 'gather-tree <step_ids> <parent_ids> <max_seq_len>',
  describe: 'back-track beam-search parents into full beams (OpenVINO GatherTree, TF gather_tree)',
  builder: (y) =>
    withBeamInputs(y).example(
      examples([
        [
          '$0 gather-tree step_ids.npy parent_ids.npy max_seq_len.npy --end-token 2 -o beams.npy',
          'the [T, B, K] beams',
        ],
      ]),
    ),
  run: async (args, io) => {
    const endToken = endTokenOption(args.endToken);
    const [steps, parents, lengths] = await loadBeamInputs(args, io);
    const { gatherTree } = await loadGatherTree();
    return {
      kind: 'tensor',
      tensor: gatherTree(steps, parents, lengths, endToken),
      label: 'gather-tree',
    };
  },
};

export const beamsCommand: CommandSpec = {
  command: 'beams <step_ids> <parent_ids> <max_seq_len>',
  describe: 'gather-tree, then print each beam as a token sequence cut at the end token',
  builder: (y) =>
    withBeamInputs(y)
      .option('include-end', {
        type: 'boolean',
        describe: 'keep the closing end token',
        default: false,
      })
      .example(
        examples([
          [
            '$0 beams step_ids.npy parent_ids.npy max_seq_len.npy --end-token 2 --json',
            'one JSON document',
          ],
          [
            '$0 beams step_ids.npy parent_ids.npy max_seq_len.npy --end-token 2 | head -1',
            'a line per beam',
          ],
        ]),
      ),
  run: async (args, io) => {
    const endToken = endTokenOption(args.endToken);
    const [steps, parents, lengths] = await loadBeamInputs(args, io);
    const { decodeBeams } = await loadGatherTree();
    return {
      kind: 'beams',
      beams: decodeBeams(steps, parents, lengths, endToken, {
        includeEnd: args.includeEnd === true,
      }),
    };
  },
};
