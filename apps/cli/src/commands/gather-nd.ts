import { gatherND } from '@tensorops/core';
import { choiceOption, integerFlag, integerOption } from '../args/flag-values.js';
import { DATA_TEXT_INPUT_FLAGS } from '../input/data-text-input.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import {
  dataAndIndexRefs,
  INDICES_FLAG,
  loadDataAndIndices,
  withIndexOperand,
} from '../input/index-inputs.js';
import { SLICE_FLAG } from '../input/sliced-ref.js';
import { TENSOR_OUTPUT_FLAGS } from '../output/flags.js';
import { type CommandSpec, examples } from './command.js';
import { OOB_FLAG, OOB_MODES } from './oob-flag.js';

export const gatherNDCommand: CommandSpec = {
  command: 'gather-nd <data> [indices_file]',
  describe: 'take slices of DATA at index tuples in the last dim of INDICES (ONNX GatherND)',
  options: {
    ...TENSOR_OUTPUT_FLAGS,
    ...HTTP_FLAGS,
    ...INDICES_FLAG,
    ...DATA_TEXT_INPUT_FLAGS,
    ...SLICE_FLAG,
    'batch-dims': integerFlag('leading dims shared by DATA and INDICES', 0),
    'flatten-batch': {
      type: 'boolean',
      describe: "fuse the batch dims into one (OpenVINO GatherND-5's output shape)",
      default: false,
    },
    ...OOB_FLAG,
  },
  builder: (y) =>
    withIndexOperand(
      y.positional('data', {
        type: 'string',
        describe:
          'data tensor, text data (.csv/.tsv/.txt/.json), or - for stdin (text with --from); REF[SLICE] for part of it',
      }),
      'integer indices [..., k]',
    ).example(
      examples([
        ['$0 gather-nd data.npy idx.npy -o out.npy', 'data[tuple(idx.T)] for idx of shape [n, k]'],
        ['$0 gather-nd data.npy idx.npy --batch-dims 1 -o out.npy', 'per-batch index tuples'],
      ]),
    ),
  wholeTensorInputs: dataAndIndexRefs,
  run: async (args, io) => {
    const batchDims = integerOption('batch-dims', args.batchDims, 0);
    const oob = choiceOption('oob', args.oob, OOB_MODES, 'error');
    const [data, indices] = await loadDataAndIndices(args, io);
    const tensor = gatherND(data, indices, {
      batchDims,
      oob,
      flattenBatch: args.flattenBatch === true,
    });
    return { kind: 'tensor', tensor, label: 'gather-nd' };
  },
};
