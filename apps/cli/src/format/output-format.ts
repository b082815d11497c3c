import type { TensorFormat } from '@tensorops/io';
import { usageError } from '../args/usage-errors.js';

// Which format an output is written in: --format, else --json, else the -o file's extension.

export type TextFormat = 'json' | 'csv' | 'tsv';
export type OutputFormat = TensorFormat | TextFormat;

export const OUTPUT_FORMATS: readonly OutputFormat[] = [
  'npy',
  'npz',
  'safetensors',
  'json',
  'csv',
  'tsv',
];

/** Other names --format takes: `txt` is what `-o x.txt` writes. */
const FORMAT_ALIASES: Readonly<Record<string, OutputFormat>> = { txt: 'tsv' };

/** Every name --format takes, in the order its usage error lists them. */
export const FORMAT_NAMES: readonly string[] = [...OUTPUT_FORMATS, ...Object.keys(FORMAT_ALIASES)];

/** Known extensions; `.txt` is tab-separated text, as numpy.savetxt's default delimiter is blank. */
const EXTENSIONS: Readonly<Record<string, OutputFormat>> = {
  '.npy': 'npy',
  '.npz': 'npz',
  '.safetensors': 'safetensors',
  '.json': 'json',
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.txt': 'tsv',
};

export function isTextFormat(format: OutputFormat): format is TextFormat {
  return format === 'json' || format === 'csv' || format === 'tsv';
}

/** `.csv` of `dir/rows.csv`; '' for a name without one (`out`, `/dev/fd/3`, `.hidden`). */
function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

export interface FormatChoice {
  /** --format as given. */
  readonly format?: string | undefined;
  /** --json: the short form of --format json. */
  readonly json: boolean;
  /** The -o file (its `:NAME` already split off); undefined for standard output. */
  readonly path?: string | undefined;
}

/**
 * The format to write, or undefined for standard output's default (.npy when piped, the view on
 * a terminal). A file without an extension (a device, a FIFO, /dev/fd/N) gets .npy. Usage errors:
 * an unknown --format, --json with another --format, an unknown extension without --format, and
 * a --format the extension contradicts (`.txt` takes csv or tsv).
 */
export function chooseFormat({
  format: given,
  json,
  path,
}: FormatChoice): OutputFormat | undefined {
  if (given !== undefined && !FORMAT_NAMES.includes(given)) {
    throw usageError(`--format takes one of ${FORMAT_NAMES.join(', ')}, got '${given}'`);
  }
  const format = given === undefined ? undefined : (FORMAT_ALIASES[given] ?? given);
  if (json && format !== undefined && format !== 'json') {
    throw usageError(`--json contradicts --format ${given}; give one of them`);
  }
  const asked = (format ?? (json ? 'json' : undefined)) as OutputFormat | undefined;
  if (path === undefined) return asked;
  const extension = extensionOf(path);
  const byExtension = EXTENSIONS[extension];
  if (asked === undefined) {
    if (byExtension !== undefined) return byExtension;
    if (extension === '') return 'npy';
    throw usageError(
      `${path}: unknown extension '${extension}'; known: ${Object.keys(EXTENSIONS).join(' ')} (or give --format)`,
    );
  }
  const fits =
    byExtension === undefined ||
    byExtension === asked ||
    (extension === '.txt' && (asked === 'csv' || asked === 'tsv'));
  if (!fits) {
    throw usageError(
      `${given === undefined ? '--json' : `--format ${given}`} contradicts the extension of ${path} (${byExtension})`,
    );
  }
  return asked;
}
