import type { TensorFormat } from '@tensorops/io';
import { openTensorFile, resolveTensorRefOnDisk, type StoredTensor } from '@tensorops/io/node';
import { isStdio, usageError } from '../args.js';
import { pickTensor } from '../tensor-names.js';
import { type CommandSpec, examples } from './command.js';

/** One tensor in the --json document. Every key is present for every format (null when n/a). */
export interface InspectTensor {
  /** null for a .npy file, whose one tensor has no name. */
  readonly name: string | null;
  /** numpy / ml_dtypes name: float32, bfloat16, float8_e4m3fn, float4_e2m1fn, U5, ... */
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Bytes of data as stored (uncompressed). */
  readonly nbytes: number;
  /** Absolute file offset of the first data byte; null inside a deflated .npz member. */
  readonly offset: number | null;
  /** The dtype as the file spells it: a .npy descr ('>i4') or a safetensors name ('BF16'). */
  readonly format_dtype: string;
  readonly fortran_order: boolean;
  /** 'little', 'big', or 'none' (1-byte elements). */
  readonly byte_order: string;
  /** .npz members: 'stored' or 'deflate'; null for the other formats. */
  readonly compression: 'stored' | 'deflate' | null;
  /** .npz members: bytes in the archive; null for the other formats. */
  readonly compressed_nbytes: number | null;
}

/** `tensorops inspect --json`: {"file", "format", "size", "tensors", "not_tensors", "metadata"}. */
export interface InspectReport {
  readonly file: string;
  readonly format: TensorFormat;
  /** File size in bytes. */
  readonly size: number;
  readonly tensors: readonly InspectTensor[];
  /** .npz members that are not readable tensors (a readme, a refused header), and why. */
  readonly not_tensors: readonly { readonly name: string; readonly reason: string }[];
  /** .safetensors `__metadata__`; null when absent and for .npy / .npz. */
  readonly metadata: Readonly<Record<string, string>> | null;
}

function describe(t: StoredTensor): InspectTensor {
  return {
    name: t.name,
    dtype: t.displayDtype,
    shape: t.shape,
    nbytes: t.nbytes,
    offset: t.offset,
    format_dtype: t.formatDtype,
    fortran_order: t.fortranOrder,
    byte_order: t.byteOrder,
    compression: t.compression ?? null,
    compressed_nbytes: t.compressedBytes ?? null,
  };
}

export const inspectCommand: CommandSpec = {
  command: 'inspect <file>',
  describe: 'list the tensors of a .npy, .npz or .safetensors file (reads headers only)',
  builder: (y) =>
    y
      .positional('file', {
        type: 'string',
        describe: 'a tensor file; FILE:NAME shows one tensor',
      })
      .example(
        examples([
          ['$0 inspect model.safetensors', 'names, dtypes, shapes, sizes and offsets'],
          ['$0 inspect arrays.npz --json', 'the same as one JSON document'],
          ['$0 inspect model.safetensors:embed.weight', 'one tensor'],
        ]),
      ),
  run: async (args) => {
    const ref = String(args.file);
    if (isStdio(ref)) throw usageError('inspect reads a file, not standard input');
    if (args.output !== undefined) throw usageError('inspect prints to stdout; -o is not used');
    const { path, name } = resolveTensorRefOnDisk(ref);
    // Headers and the zip directory only: no tensor data is read.
    const file = await openTensorFile(path);
    try {
      const tensors = name === undefined ? file.tensors : [pickTensor(file, name)];
      return {
        kind: 'inspect',
        report: {
          file: path,
          format: file.format,
          size: file.size,
          tensors: tensors.map(describe),
          not_tensors:
            name === undefined
              ? file.notTensors.map((o) => ({ name: o.name, reason: o.error.message }))
              : [],
          metadata: file.metadata === null ? null : { ...file.metadata },
        },
      };
    } finally {
      await file.close();
    }
  },
};
