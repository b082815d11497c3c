import { gather } from '@tensorops/core';
import { gatherFromFile, gatherFromPipe, type TensorStream } from '@tensorops/io/node';
import { choiceOption, integerFlag, integerOption } from '../args/flag-values.js';
import { DATA_TEXT_INPUT_FLAGS, loadDataOperandText } from '../input/data-text-input.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import {
  checkStdinOnce,
  INDICES_FLAG,
  loadIndexOperand,
  withIndexOperand,
} from '../input/index-inputs.js';
import { type DataInput, openDataInput } from '../input/inputs.js';
import { SLICE_FLAG } from '../input/sliced-ref.js';
import { TENSOR_OUTPUT_FLAGS } from '../output/flags.js';
import { type CommandSpec, examples } from './command.js';
import { OOB_FLAG, OOB_MODES } from './oob-flag.js';

export const gatherCommand: CommandSpec = {
  command: 'gather <data> [indices_file]',
  describe: 'take slices of DATA along an axis at INDICES (numpy take, ONNX Gather)',
  options: {
    ...TENSOR_OUTPUT_FLAGS,
    ...HTTP_FLAGS,
    ...INDICES_FLAG,
    ...DATA_TEXT_INPUT_FLAGS,
    ...SLICE_FLAG,
    axis: integerFlag('axis of DATA to gather along, in [-r, r-1]', 0),
    'batch-dims': integerFlag('leading dims shared by DATA and INDICES', 0),
    ...OOB_FLAG,
  },
  builder: (y) =>
    withIndexOperand(
      y.positional('data', {
        type: 'string',
        describe:
          'data tensor: FILE.npy, FILE.npz:NAME, FILE.safetensors:NAME, FILE.gguf:NAME, FILE.pt:NAME, text data (.csv/.tsv/.txt/.json), or - (.npy on stdin, text with --from); REF[SLICE] gathers from part of it',
      }),
      'integer index tensor',
    ).example(
      examples([
        ['$0 gather data.npy idx.npy --axis 1 -o out.npy', 'np.take(data, idx, axis=1)'],
        ['$0 gather data.npy idx.npy --axis 2 --batch-dims 1 > out.npy', 'per-batch indices'],
        ['cat idx.npy | $0 gather data.npy - > out.npy', 'indices from a pipe'],
        ['seq 0 2 9 | $0 gather emb.npy - -o rows.npy', 'indices as text, one per line'],
        ["$0 gather emb.npy --indices '3,1,4' --json", 'rows 3, 1, 4: np.take(emb, [3,1,4], 0)'],
        ['$0 gather emb.npy --indices 3 --json', 'row 3 alone: a lone number is a scalar index'],
        ['$0 gather emb.npy ids.npy --oob zero -o rows.npy', 'zeros for out-of-range ids'],
      ]),
    ),
  run: async (args, io) => {
    const axis = integerOption('axis', args.axis, 0);
    const batchDims = integerOption('batch-dims', args.batchDims, 0);
    const oob = choiceOption('oob', args.oob, OOB_MODES, 'error');
    const dataRef = String(args.data);
    checkStdinOnce(dataRef, args);
    // A large data tensor stays in its file (only the rows the indices pick are read) or on its
    // pipe (read once, window by window, the picked rows copied out as they pass).
    const text = await loadDataOperandText(args, io);
    const data: DataInput =
      text === undefined
        ? await openDataInput(dataRef, io, args.slice)
        : { kind: 'tensor', tensor: text };
    if (data.kind === 'tensor') {
      const indices = await loadIndexOperand(args, io);
      return {
        kind: 'tensor',
        tensor: gather(data.tensor, indices, { axis, batchDims, oob }),
        label: 'gather',
      };
    }
    let spilled: (() => Promise<void>) | undefined;
    const close = async () => {
      await spilled?.();
      await (data.kind === 'file' ? data.file.close() : data.npy.close());
    };
    try {
      const indices = await loadIndexOperand(args, io);
      const options = { axis, batchDims, oob };
      let stream: TensorStream;
      if (data.kind === 'file') stream = gatherFromFile(data.file, data.stored, indices, options);
      else {
        const piped = await gatherFromPipe(data.npy, indices, options);
        spilled = piped.close;
        stream = piped.stream;
      }
      return { kind: 'stream', stream, label: 'gather', dispose: close };
    } catch (error) {
      await close();
      throw error;
    }
  },
};
