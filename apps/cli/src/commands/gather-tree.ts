import { HTTP_FLAGS } from '../input/http-flags.js';
import { TENSOR_OUTPUT_FLAGS } from '../output/flags.js';
import { END_TOKEN_FLAG, loadBeamSearch, withBeamInputs } from './beam-inputs.js';
import { type CommandSpec, examples } from './command.js';

export const gatherTreeCommand: CommandSpec = {
  command: 'gather-tree <step_ids> <parent_ids> <max_seq_len>',
  describe: 'back-track beam-search parents into full beams (OpenVINO GatherTree, TF gather_tree)',
  options: { ...TENSOR_OUTPUT_FLAGS, ...HTTP_FLAGS, ...END_TOKEN_FLAG },
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
    const { inputs, endToken, ops } = await loadBeamSearch(args, io);
    return { kind: 'tensor', tensor: ops.gatherTree(...inputs, endToken), label: 'gather-tree' };
  },
};
