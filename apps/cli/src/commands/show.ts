import { sliceOfStored } from '@tensorops/io';
import { integerOption } from '../args/flag-values.js';
import { usageError } from '../args/usage-errors.js';
import { loadDataTextInput, TEXT_INPUT_FLAGS } from '../input/data-text-input.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import { fittedOrThrow, loadTensor, openSlicedRef } from '../input/inputs.js';
import { isStdinRef, SLICE_FLAG } from '../input/sliced-ref.js';
import { pickTensor } from '../input/tensor-names.js';
import { TENSOR_OUTPUT_FLAGS } from '../output/flags.js';
import { type CommandSpec, examples } from './command.js';

export const showCommand: CommandSpec = {
  command: 'show <ref>',
  describe:
    'print one stored tensor: a view on a terminal, tab-separated rows in a pipe, --format or -o FILE for a file format',
  options: {
    ...TENSOR_OUTPUT_FLAGS,
    ...HTTP_FLAGS,
    ...TEXT_INPUT_FLAGS,
    ...SLICE_FLAG,
    head: {
      type: 'string',
      describe:
        'only the first N entries along axis 0, as the slice [:N] (after --slice or REF[...])',
    },
  },
  builder: (y) =>
    y
      .positional('ref', {
        type: 'string',
        describe:
          'FILE.npy, FILE.npz:NAME, FILE.safetensors:NAME, FILE.gguf:NAME, FILE.pt:NAME, text data (.csv/.tsv/.txt/.json), or - (.npy on stdin, text with --from), optionally with a numpy slice: REF[1000:1010, ::2]',
      })
      .example(
        examples([
          ['$0 show model.safetensors:embed.weight --head 3', 'the first rows on a terminal'],
          [
            "$0 show 'model.safetensors:embed.weight[1000:1010, ::2]'",
            'rows 1000-1009, every other column: only their bytes are read',
          ],
          ["$0 show data.npy --slice '..., -1'", 'the last entry of the last axis'],
          ['$0 show arrays.npz:x | head', 'tab-separated rows in a pipe'],
          ['$0 show arrays.npz:x --format csv > x.csv', 'one tensor as CSV'],
          ['$0 show model.safetensors:bias -o bias.npy', 'the tensor as .npy (or --format npy)'],
          ['$0 show model.safetensors:bias --json | jq .shape', 'JSON for jq'],
          ['$0 show rows.csv --dtype int64', 'CSV rows read as numpy.loadtxt reads them'],
        ]),
      ),
  run: async (args, io) => {
    const ref = String(args.ref);
    const head = args.head === undefined ? undefined : headOption(args.head);
    const text = await loadDataTextInput(ref, args, io, head);
    if (text !== undefined || isStdinRef(ref)) {
      // A regular file on stdin is read as that file; a pipe once, its declared bytes only.
      const tensor = text ?? (await loadTensor(ref, io, { slice: args.slice, head }));
      const label = isStdinRef(ref) ? 'stdin' : ref;
      return { kind: 'tensor', tensor, label, piped: 'text' };
    }
    const { file, name, slice } = await openSlicedRef(ref, io, args.slice);
    try {
      const stored = pickTensor(file, name);
      const picks = fittedOrThrow(file.path, stored.shape, slice, head);
      const stream = picks === undefined ? file.stream(stored) : sliceOfStored(file, stored, picks);
      // file.path names a URL without its query string or credentials.
      const label = name === undefined ? file.path : `${file.path}:${name}`;
      return { kind: 'stream', stream, label, piped: 'text', dispose: () => file.close() };
    } catch (error) {
      await file.close();
      throw error;
    }
  },
};

function headOption(value: unknown): number {
  const n = integerOption('head', value, 0);
  if (n < 0) throw usageError(`--head takes a count of entries (0 or more), got '${value}'`);
  return n;
}
