import type { Tensor } from '@tensorops/core';
import {
  openTensorFile,
  resolveTensorRefOnDisk,
  type StoredTensor,
  type TensorFile,
  type TensorStream,
} from '@tensorops/io/node';
import { isStdio } from '../args/dashes.js';
import { integerOption } from '../args/flag-values.js';
import { usageError } from '../args/usage-errors.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import { loadTensor } from '../input/inputs.js';
import { openOptions } from '../input/remote.js';
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
    head: {
      type: 'string',
      describe: 'only the first N entries along axis 0 (only their bytes are read)',
    },
  },
  builder: (y) =>
    y
      .positional('ref', {
        type: 'string',
        describe:
          'FILE.npy, FILE.npz:NAME, FILE.safetensors:NAME, FILE.gguf:NAME, or - (.npy on stdin)',
      })
      .example(
        examples([
          ['$0 show model.safetensors:embed.weight --head 3', 'the first rows on a terminal'],
          ['$0 show arrays.npz:x | head', 'tab-separated rows in a pipe'],
          ['$0 show arrays.npz:x --format csv > x.csv', 'one tensor as CSV'],
          ['$0 show model.safetensors:bias -o bias.npy', 'the tensor as .npy (or --format npy)'],
          ['$0 show model.safetensors:bias --json | jq .shape', 'JSON for jq'],
        ]),
      ),
  run: async (args, io) => {
    const ref = String(args.ref);
    const head = args.head === undefined ? undefined : headOption(args.head);
    if (isStdio(ref)) {
      // A regular file on stdin is read as that file; a pipe once, its declared bytes only.
      const tensor = await loadTensor(ref, io);
      return { kind: 'tensor', tensor: headOfTensor(tensor, head), label: 'stdin', piped: 'text' };
    }
    const { path, name } = resolveTensorRefOnDisk(ref);
    const file = await openTensorFile(path, openOptions(name, io));
    try {
      const stored = pickTensor(file, name);
      const stream = head === undefined ? file.stream(stored) : headOfStored(file, stored, head);
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

/** The shape of the first `n` entries along axis 0, and the bytes they take. */
function headShape(
  shape: readonly number[],
  nbytes: number,
  n: number,
): { shape: number[]; nbytes: number } {
  const [rows, ...rest] = shape;
  if (rows === undefined) throw usageError('--head needs a tensor of at least one dimension');
  const kept = Math.min(n, rows);
  return { shape: [kept, ...rest], nbytes: rows === 0 ? 0 : (nbytes / rows) * kept };
}

function headOfTensor(t: Tensor, n: number | undefined): Tensor {
  if (n === undefined) return t;
  const { shape, nbytes } = headShape(t.shape, t.data.byteLength, n);
  return { dtype: t.dtype, shape, data: t.data.subarray(0, nbytes) };
}

/**
 * The first `n` entries of a stored tensor. Where the file lays them out as one range (C order,
 * not inside an .npz, whose members are checked whole) only that range is read; otherwise the
 * stream is cut after those bytes, which stops the reading there.
 */
function headOfStored(file: TensorFile, stored: StoredTensor, n: number): TensorStream {
  const { shape, nbytes } = headShape(stored.shape, stored.nbytes, n);
  const oneRange =
    file.format !== 'npz' &&
    stored.offset !== null &&
    !(stored.fortranOrder && stored.shape.length >= 2);
  if (oneRange) return file.stream({ ...stored, shape, nbytes });
  const whole = file.stream(stored);
  return {
    dtype: whole.dtype,
    shape,
    nbytes,
    async *chunks(options) {
      let left = nbytes;
      if (left === 0) return;
      for await (const chunk of whole.chunks(options)) {
        yield chunk.byteLength <= left ? chunk : chunk.subarray(0, left);
        left -= Math.min(left, chunk.byteLength);
        if (left === 0) return;
      }
    },
  };
}
