import { parseOutputRef, sliceOfStored } from '@tensorops/io';
import {
  quantizedBlocks,
  type StoredTensor,
  streamOfTensor,
  type TensorStream,
} from '@tensorops/io/node';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';
import { chooseFormat } from '../format/output-format.js';
import { loadDataTextInput, TEXT_INPUT_FLAGS } from '../input/data-text-input.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import { fittedOrThrow, loadTensor, openSlicedRef } from '../input/inputs.js';
import { isStdinRef, SLICE_FLAG } from '../input/sliced-ref.js';
import { namesHint, pickTensor } from '../input/tensor-names.js';
import { outputFlags } from '../output/flags.js';
import { type CommandSpec, examples } from './command.js';

export const convertCommand: CommandSpec = {
  command: 'convert <in> <out>',
  describe:
    'convert between .npy, .npz and .safetensors bit for bit (and from .gguf and torch checkpoints), to JSON, CSV, TSV, or from text data (CSV, TSV, blank-separated, JSON)',
  // OUT is the target, and it is never shown as a view on a terminal.
  options: {
    ...outputFlags('format', 'json', 'force', 'header', 'quiet'),
    ...HTTP_FLAGS,
    ...TEXT_INPUT_FLAGS,
    ...SLICE_FLAG,
    compress: {
      type: 'boolean',
      describe: 'deflate .npz members (np.savez_compressed); default stored, like np.savez',
    },
    'keep-quantized': {
      type: 'boolean',
      describe:
        ".gguf: write quantized tensors as their ggml blocks, uint8 rows as gguf-py's tensor.data, each one's ggml type in .safetensors __metadata__ as ggml_type.NAME (.npy and .npz have no place for it: a note says so); default: dequantized to float32",
    },
  },
  refuses: { output: 'convert writes to OUT; -o is not used' },
  builder: (y) =>
    y
      .positional('in', {
        type: 'string',
        describe:
          'a file (every tensor), FILE:NAME (one tensor), text data (.csv/.tsv/.txt/.json, as numpy.loadtxt reads it), or - for .npy on stdin (text with --from); REF[SLICE] converts part of one tensor',
      })
      .positional('out', {
        type: 'string',
        describe:
          'the file to write, format by --format or the extension (OUT.npz:NAME names a single tensor), or - for stdout',
      })
      .example(
        examples([
          ['$0 convert model.safetensors:embed.weight embed.npy', 'one tensor to .npy'],
          ['$0 convert arrays.npz arrays.safetensors', 'every tensor, names kept'],
          [
            '$0 convert model.safetensors weights.npz --compress',
            'bfloat16 becomes float32 (exact)',
          ],
          ['$0 convert data.npy data.safetensors:x', 'a .npy tensor stored under the name x'],
          ['$0 convert arrays.npz:x x.csv', 'one tensor as CSV (numpy.loadtxt reads it back)'],
          ['$0 convert data.npy - --format tsv | head', 'tab-separated text on stdout'],
          ['$0 convert rows.csv rows.npy --dtype float32', 'CSV rows as a [rows, columns] tensor'],
          [
            "$0 convert log.txt x.npy --delimiter ';' --skip-rows 1",
            'one header line skipped, # comments ignored',
          ],
          ['cat x.json | $0 convert - x.npy --from json', 'nested JSON arrays on stdin'],
          ["$0 convert 'model.safetensors:embed.weight[:1000]' head.npy", 'the first 1000 rows'],
          ['$0 convert model.gguf:token_embd.weight embd.npy', 'a GGUF tensor, dequantized'],
        ]),
      ),
  run: async (args, io) => {
    const input = String(args.in);
    const output = String(args.out);
    const target =
      chooseFormat({
        format: args.format as string | undefined,
        json: args.json === true,
        path: isStdio(output) ? undefined : parseOutputRef(output).path,
      }) ?? 'npy';
    const holdsOne = target !== 'npz' && target !== 'safetensors';
    const text = await loadDataTextInput(input, args, io);
    if (text !== undefined || isStdinRef(input)) {
      const tensor = text ?? (await loadTensor(input, io, { slice: args.slice }));
      return {
        kind: 'tensors',
        entries: [{ name: undefined, data: streamOfTensor(tensor) }],
        metadata: null,
        output,
        compress: args.compress === true,
        label: 'convert',
        dispose: async () => {},
      };
    }
    const { file, name, slice } = await openSlicedRef(input, io, args.slice);
    try {
      // Every tensor: an .npz member that should be one but cannot be read refuses the whole.
      for (const other of name === undefined ? file.notTensors : []) {
        if (other.kind === 'unreadable') file.get(other.name);
      }
      const picked = name === undefined ? file.tensors : [pickTensor(file, name)];
      if (holdsOne && picked.length !== 1) {
        const shown = file.path;
        const names = namesHint(
          shown,
          picked.map((t) => t.name),
          `${shown} holds ${picked.length} tensors, a .${target} file one: pick one as ${shown}:NAME or write .npz/.safetensors; `,
        );
        throw usageError(
          picked.length === 0
            ? `${shown} holds no tensors: nothing to write to a .${target} file`
            : `${shown} holds ${picked.length} tensors, a .${target} file one: pick one as ${shown}:NAME or write .npz/.safetensors; ${names}`,
        );
      }
      if (slice !== undefined && picked.length !== 1) {
        throw usageError(
          `a slice reads one tensor and ${file.path} holds ${picked.length}: pick one as ${file.path}:NAME[...]`,
        );
      }
      const read = (t: StoredTensor): TensorStream => {
        const picks = fittedOrThrow(file.path, t.shape, slice, undefined);
        return picks === undefined ? file.stream(t) : sliceOfStored(file, t, picks);
      };
      // stream() checks every dtype now (F4/F6 are refused before any file is created); the
      // data itself is read while the output is written.
      const keep = args['keep-quantized'] === true;
      if (keep && slice !== undefined) {
        throw usageError('--keep-quantized writes whole tensors as their blocks: drop the slice');
      }
      const entries = picked.map((t) => ({
        name: t.name ?? undefined,
        data: keep ? file.stream(quantizedBlocks(t)) : read(t),
      }));
      const metadata = name === undefined ? file.metadata : null;
      return {
        kind: 'tensors',
        entries,
        metadata: keep ? withGgmlTypes(metadata, picked) : metadata,
        output,
        compress: args.compress === true,
        label: 'convert',
        dispose: () => file.close(),
      };
    } catch (error) {
      await file.close();
      throw error;
    }
  },
};

/** `metadata` and, for each quantized tensor, `ggml_type.NAME`: its ggml type (Q4_K). */
function withGgmlTypes(
  metadata: Readonly<Record<string, string>> | null,
  tensors: readonly StoredTensor[],
): Readonly<Record<string, string>> | null {
  const types = tensors.flatMap((t) =>
    t.quantized === undefined ? [] : [[`ggml_type.${t.name ?? ''}`, t.quantized.name] as const],
  );
  return types.length === 0 ? metadata : { ...metadata, ...Object.fromEntries(types) };
}
