import type { Options } from 'yargs';

/** The output flags, in the order `--help` lists them; a command takes the ones its sink reads. */
const OUTPUT_FLAGS = {
  output: {
    alias: 'o',
    type: 'string',
    describe:
      'write the result to this file (- for stdout); a regular file is replaced atomically, a device, FIFO or /dev/fd/N is written in place',
  },
  format: {
    type: 'string',
    describe:
      'npy, npz, safetensors, json, csv, tsv or txt (the same as tsv) (default: the -o extension, .txt is tsv; .npy on a pipe, tsv rows for show)',
  },
  json: { type: 'boolean', describe: 'the same as --format json' },
  force: {
    type: 'boolean',
    describe: '-o FILE.npz:NAME / FILE.safetensors:NAME may replace a file holding other tensors',
  },
  header: {
    type: 'boolean',
    describe: 'csv/tsv: a first line "# dtype D, shape [..]" (numpy.loadtxt skips it)',
  },
  quiet: { alias: 'q', type: 'boolean', describe: 'print nothing but the result' },
  color: { type: 'boolean', default: true, describe: 'colour on a terminal (--no-color: off)' },
} as const satisfies Record<string, Options>;

export type OutputFlag = keyof typeof OUTPUT_FLAGS;

/** The output flags named, in their `--help` order whatever the order given. */
export function outputFlags(...names: readonly OutputFlag[]): Record<string, Options> {
  const picked = Object.entries(OUTPUT_FLAGS).filter(([name]) =>
    names.includes(name as OutputFlag),
  );
  return Object.fromEntries(picked);
}

/** Every output flag: what a command that writes tensors reads. */
export const TENSOR_OUTPUT_FLAGS = outputFlags(...(Object.keys(OUTPUT_FLAGS) as OutputFlag[]));
