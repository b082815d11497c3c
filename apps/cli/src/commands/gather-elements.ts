import { gatherElements } from '@tensorops/core';
import { choiceOption, integerFlag, integerOption } from '../args/flag-values.js';
import { DATA_TEXT_INPUT_FLAGS } from '../input/data-text-input.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import {
  INDICES_FLAG,
  loadDataOperand,
  loadIndexOperand,
  withIndexOperand,
} from '../input/index-inputs.js';
import { SLICE_FLAG } from '../input/sliced-ref.js';
import { TENSOR_OUTPUT_FLAGS } from '../output/flags.js';
import { type CommandSpec, examples } from './command.js';
import { gatherElementsByRows } from './gather-elements-rows.js';
import { OOB_FLAG, OOB_MODES } from './oob-flag.js';

export const gatherElementsCommand: CommandSpec = {
  command: 'gather-elements <data> [indices_file]',
  describe:
    'pick one element of DATA per index along an axis (np.take_along_axis, ONNX GatherElements)',
  options: {
    ...TENSOR_OUTPUT_FLAGS,
    ...HTTP_FLAGS,
    ...INDICES_FLAG,
    ...DATA_TEXT_INPUT_FLAGS,
    ...SLICE_FLAG,
    axis: integerFlag('axis of DATA to pick along, in [-r, r-1]', 0),
    ...OOB_FLAG,
  },
  builder: (y) =>
    withIndexOperand(
      y.positional('data', {
        type: 'string',
        describe:
          'data tensor (rank >= 1), text data (.csv/.tsv/.txt/.json), or - for stdin (text with --from); REF[SLICE] for part of it',
      }),
      'integer indices of the same rank',
    ).example(
      examples([
        [
          '$0 gather-elements data.npy idx.npy --axis 1 -o out.npy',
          'np.take_along_axis(data, idx, axis=1)',
        ],
        ['$0 gather-elements scores.npy order.npy --axis -1 > sorted.npy', 'reorder each row'],
      ]),
    ),
  // Not started again with huge pages (no wholeTensorInputs): see launch/huge-pages.ts.
  run: async (args, io) => {
    const axis = integerOption('axis', args.axis, 0);
    const oob = choiceOption('oob', args.oob, OOB_MODES, 'error');
    const data = await loadDataOperand(args, io);
    // Indices in a .npy file are read by blocks of rows where the axis is the last one.
    const file = args.indices_file as string | undefined;
    const byRows =
      file !== undefined && args.indices === undefined
        ? await gatherElementsByRows(data, file, axis, oob)
        : undefined;
    return {
      kind: 'tensor',
      tensor: byRows ?? gatherElements(data, await loadIndexOperand(args, io), { axis, oob }),
      label: 'gather-elements',
    };
  },
};
