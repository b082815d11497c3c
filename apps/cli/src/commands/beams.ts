import { HTTP_FLAGS } from '../input/http-flags.js';
import { outputFlags } from '../output/flags.js';
import { END_TOKEN_FLAG, loadBeamSearch, withBeamInputs } from './beam-inputs.js';
import { type CommandSpec, examples } from './command.js';

export const beamsCommand: CommandSpec = {
  command: 'beams <step_ids> <parent_ids> <max_seq_len>',
  describe: 'gather-tree, then print each beam as a token sequence cut at the end token',
  // Beams are text of their own (output/beams.ts): no --header, no view to colour, and no
  // container to --force.
  options: {
    ...outputFlags('output', 'format', 'json', 'quiet'),
    ...HTTP_FLAGS,
    ...END_TOKEN_FLAG,
    'include-end': {
      type: 'boolean',
      describe: 'keep the closing end token',
      default: false,
    },
  },
  builder: (y) =>
    withBeamInputs(y).example(
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
    const { inputs, endToken, ops } = await loadBeamSearch(args, io);
    const includeEnd = args.includeEnd === true;
    return { kind: 'beams', beams: ops.decodeBeams(...inputs, endToken, { includeEnd }) };
  },
};
