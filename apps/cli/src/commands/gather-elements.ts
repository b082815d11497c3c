import { gatherElements, type OobMode, type Tensor } from '@tensorops/core';
import { choiceOption, integerFlag, integerOption } from '../args/flag-values.js';
import { DATA_TEXT_INPUT_FLAGS, loadDataOperandText } from '../input/data-text-input.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import {
  checkStdinOnce,
  INDICES_FLAG,
  loadIndexOperand,
  withIndexOperand,
} from '../input/index-inputs.js';
import { loadDataInput, loadTensor, openDataInput } from '../input/inputs.js';
import { isStdinRef, SLICE_FLAG } from '../input/sliced-ref.js';
import { TENSOR_OUTPUT_FLAGS } from '../output/flags.js';
import { outputReplacedWhole } from '../output/replaced-whole.js';
import type { CliIO } from '../run/cli-io.js';
import { type CommandResult, type CommandSpec, examples, type ParsedArgs } from './command.js';
import { gatherElementsByRows, streamGatherElementsByRows } from './gather-elements-rows.js';
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
    const dataRef = String(args.data);
    checkStdinOnce(dataRef, args);
    // Indices in a .npy file are read by blocks of rows where the axis is the last one.
    const file = args.indices === undefined ? (args.indices_file as string | undefined) : undefined;
    const text = await loadDataOperandText(args, io);
    let data: Tensor | undefined = text;
    const streamable = text === undefined && file !== undefined && !isStdinRef(dataRef);
    if (streamable && (await outputReplacedWhole(args.output))) {
      const streamed = await streamedByRows(dataRef, args, io, file, axis, oob);
      if (streamed.kind === 'stream') return streamed;
      data = streamed.tensor;
    }
    data ??= await loadTensor(dataRef, io, { slice: args.slice });
    const byRows =
      file === undefined ? undefined : await gatherElementsByRows(data, file, axis, oob);
    return {
      kind: 'tensor',
      tensor: byRows ?? gatherElements(data, await loadIndexOperand(args, io), { axis, oob }),
      label: 'gather-elements',
    };
  },
};

/**
 * With an output a failure leaves untouched, a large data tensor in a file is read by blocks of
 * rows too, and the output handed on as it is made; else the data, loaded whole.
 */
async function streamedByRows(
  dataRef: string,
  args: ParsedArgs,
  io: CliIO,
  file: string,
  axis: number,
  oob: OobMode,
): Promise<Extract<CommandResult, { kind: 'stream' }> | { kind: 'loaded'; tensor: Tensor }> {
  const input = await openDataInput(dataRef, io, args.slice);
  if (input.kind === 'file') {
    const streamed = await streamGatherElementsByRows(
      input.file,
      input.stored,
      file,
      axis,
      oob,
    ).catch(async (error) => {
      await input.file.close();
      throw error;
    });
    if (streamed !== undefined) {
      const dispose = async () => {
        await streamed.close();
        await input.file.close();
      };
      return { kind: 'stream', stream: streamed.stream, label: 'gather-elements', dispose };
    }
  }
  return { kind: 'loaded', tensor: await loadDataInput(input) };
}
