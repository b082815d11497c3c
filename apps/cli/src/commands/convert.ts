import { parseOutputRef } from '@tensorops/io';
import {
  openTensorFile,
  quantizedBlocks,
  resolveTensorRefOnDisk,
  type StoredTensor,
  streamOfTensor,
  type TensorFile,
} from '@tensorops/io/node';
import { isStdio } from '../args/dashes.js';
import { usageError } from '../args/usage-errors.js';
import { chooseFormat } from '../format/output-format.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import { loadTensor } from '../input/inputs.js';
import { openOptions } from '../input/remote.js';
import { namesHint, pickTensor } from '../input/tensor-names.js';
import { outputFlags } from '../output/flags.js';
import { type CommandSpec, examples } from './command.js';

export const convertCommand: CommandSpec = {
  command: 'convert <in> <out>',
  describe:
    'convert between .npy, .npz and .safetensors bit for bit (and from .gguf), or to JSON, CSV, TSV',
  // OUT is the target, and it is never shown as a view on a terminal.
  options: {
    ...outputFlags('format', 'json', 'force', 'header', 'quiet'),
    ...HTTP_FLAGS,
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
        describe: 'a file (every tensor), FILE:NAME (one tensor), or - for .npy on stdin',
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
    if (isStdio(input)) {
      const tensor = await loadTensor('-', io);
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
    const { path, name } = resolveTensorRefOnDisk(input);
    const file: TensorFile = await openTensorFile(path, openOptions(name, io));
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
      // stream() checks every dtype now (F4/F6 are refused before any file is created); the
      // data itself is read while the output is written.
      const keep = args['keep-quantized'] === true;
      const entries = picked.map((t) => ({
        name: t.name ?? undefined,
        data: file.stream(keep ? quantizedBlocks(t) : t),
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
