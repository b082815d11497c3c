import { TensorOpsError } from '@tensorops/core';
import {
  openTensorFile,
  resolveTensorRefOnDisk,
  type StoredTensor,
  type TensorFile,
} from '@tensorops/io/node';
import { isStdio } from '../args/dashes.js';
import { choiceOption } from '../args/flag-values.js';
import { usageError } from '../args/usage-errors.js';
import { formatBytes } from '../format/bytes.js';
import { HTTP_FLAGS } from '../input/http-flags.js';
import { openStdinFile } from '../input/inputs.js';
import { nameMatcher } from '../input/name-glob.js';
import { openOptions } from '../input/remote.js';
import { pickTensor } from '../input/tensor-names.js';
import { verifyTensor } from '../input/verify.js';
import { outputFlags } from '../output/flags.js';
import { ggufReport, SUMMARY_ITEMS } from '../output/inspect-gguf.js';
import { describeTensor, type InspectReport } from '../output/inspect-report.js';
import { summarize } from '../output/inspect-summary.js';
import type { CliIO } from '../run/cli-io.js';
import { printable } from '../ui/layout.js';
import { type CommandSpec, examples, type ParsedArgs } from './command.js';

const SORT_ORDERS = ['file', 'name', 'offset'] as const;
const REPORT_FORMATS = ['json', 'csv', 'tsv'] as const;
type SortOrder = (typeof SORT_ORDERS)[number];

/** `--sort offset`: by data offset; tensors without one (deflated .npz members) last, in file order. */
function sortTensors(tensors: readonly StoredTensor[], order: SortOrder): StoredTensor[] {
  const sorted = [...tensors];
  if (order === 'name') sorted.sort((a, b) => compareText(a.name ?? '', b.name ?? ''));
  if (order === 'offset') {
    sorted.sort(
      (a, b) => (a.offset ?? Number.POSITIVE_INFINITY) - (b.offset ?? Number.POSITIVE_INFINITY),
    );
  }
  return sorted;
}

/** Code-point order, the same on every machine (no locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Inspected {
  readonly report: InspectReport;
  /** With --verify: what was checked, in one line. */
  readonly verified?: string;
}

async function inspectOne(ref: string, args: ParsedArgs, io: CliIO): Promise<Inspected> {
  const { path, name } = isStdio(ref)
    ? { path: ref, name: undefined }
    : resolveTensorRefOnDisk(ref);
  // Headers and the zip directory only, unless --verify: then every byte.
  const file = isStdio(ref)
    ? await openStdinFile(io, args.verify === true)
    : await openTensorFile(path, openOptions(name, io));
  try {
    const matches = args.filter === undefined ? () => true : nameMatcher(String(args.filter));
    let tensors = name === undefined ? file.tensors : [pickTensor(file, name)];
    tensors = tensors.filter((t) => matches(t.name ?? ''));
    tensors = sortTensors(tensors, choiceOption('sort', args.sort, SORT_ORDERS, 'file'));
    if (args.verify === true) {
      for (const o of file.notTensors) {
        // A NAME.npy member that cannot be read is a damaged tensor; a readme is no tensor at all.
        if (o.kind === 'unreadable' && matches(o.name)) {
          throw new TensorOpsError(
            'E_FORMAT',
            `${file.path}: tensor '${printable(o.name)}' fails verification: ${o.error.message}`,
          );
        }
      }
      // A sharded checkpoint: each opened shard holds exactly the tensors the map gives it.
      const [extra] = file.sharded?.unmapped ?? [];
      if (extra !== undefined) {
        throw new TensorOpsError(
          'E_FORMAT',
          `${file.path}: shard '${printable(extra.shard)}' holds tensor '${printable(extra.name)}', which the map does not give it`,
        );
      }
      for (const t of tensors) await verifyTensor(file, t);
    }
    const report: InspectReport = {
      // The file as messages name it: a URL without its query string or credentials.
      file: file.path,
      format: file.format,
      size: file.size,
      shards: file.sharded?.shards ?? null,
      tensors,
      not_tensors:
        name === undefined
          ? file.notTensors
              .filter((o) => matches(o.name))
              .map((o) => ({ name: o.name, reason: o.error.message }))
          : [],
      metadata: file.metadata === null ? null : { ...file.metadata },
      other_entries: file.otherEntries,
      ...(file.gguf === undefined ? {} : { gguf: ggufReport(file.gguf, args.metadata === true) }),
      ...(args.summary === true ? { summary: summarize(tensors.map(describeTensor)) } : {}),
    };
    return args.verify === true ? { report, verified: verifiedLine(file, tensors) } : { report };
  } finally {
    await file.close();
  }
}

/** `verified FILE: 3 tensors, 1.2 KiB read (...)`: what --verify checked of `tensors`. */
function verifiedLine(file: TensorFile, tensors: readonly StoredTensor[]): string {
  const bytes = tensors.reduce((n, t) => n + t.nbytes, 0);
  const checks = ['each tensor fills its declared size'];
  if (file.format === 'npz') checks.push('CRC-32 and sizes of each member');
  if (tensors.some((t) => t.dtype === 'bool')) checks.push('bool bytes 0 or 1');
  if (file.sharded) {
    checks.push(`each of ${file.sharded.shards} shards holds exactly the tensors its map gives it`);
  }
  const count = `${tensors.length} tensor${tensors.length === 1 ? '' : 's'}`;
  return `verified ${printable(file.path)}: ${count}, ${formatBytes(bytes)} read (${checks.join('; ')})`;
}

export const inspectCommand: CommandSpec = {
  command: 'inspect <files..>',
  describe:
    'list the tensors of .npy, .npz, .safetensors and .gguf files (reads headers only); a GGUF shape is numpy order, its ne reversed, as gguf-py gives it',
  // The report is a table or --json (output/inspect.ts), printed to stdout.
  options: {
    ...outputFlags('json', 'quiet', 'color'),
    ...HTTP_FLAGS,
    filter: {
      type: 'string',
      requiresArg: true,
      describe: "only tensors whose name matches this glob (* ? [abc], as Python's fnmatch)",
    },
    sort: {
      type: 'string',
      choices: SORT_ORDERS,
      default: 'file',
      describe: 'list tensors in file order, by name, or by data offset',
    },
    format: {
      type: 'string',
      requiresArg: true,
      describe:
        'json, csv or tsv: the report as one JSON document (as --json), or a row per tensor (per group with --summary) under a header',
    },
    summary: {
      type: 'boolean',
      describe:
        "group names whose numbers differ (model.layers.#.mlp.weight ×32) by dtype and shape, with each group's count and bytes, then the parameters and bytes by dtype",
    },
    metadata: {
      type: 'boolean',
      describe: `.gguf: every item of each metadata array (default: its length and first ${SUMMARY_ITEMS} items)`,
    },
    verify: {
      type: 'boolean',
      describe:
        'read every byte: .npz CRCs and sizes, data filling its declared size, bool bytes 0/1; each shard of a sharded checkpoint holds exactly the tensors its map gives it',
    },
  },
  refuses: { output: 'inspect prints to stdout; -o is not used' },
  builder: (y) =>
    y
      .positional('files', {
        type: 'string',
        describe:
          'tensor files or sharded checkpoints (*.safetensors.index.json); FILE:NAME shows one tensor; - reads stdin',
      })
      .example(
        examples([
          ['$0 inspect model.safetensors', 'names, dtypes, shapes, sizes and offsets'],
          ['$0 inspect arrays.npz --json', 'the same as one JSON document'],
          [
            '$0 inspect model.safetensors --summary',
            'layers grouped; parameters and bytes by dtype',
          ],
          ['$0 inspect model-*.safetensors --format csv', 'a row per tensor, for a spreadsheet'],
          ['$0 inspect model.safetensors:embed.weight', 'one tensor'],
          [
            '$0 inspect model.safetensors.index.json --verify',
            'every tensor of a sharded checkpoint with its shard; each shard holds what the map says',
          ],
          [
            "$0 inspect model-*.safetensors --filter 'model.layers.*.weight' --sort name",
            'several files, some tensors, by name',
          ],
          ['$0 inspect checkpoint.npz --verify', 'check every byte; exit 1 naming a bad tensor'],
          ['curl -s URL | $0 inspect -', 'a file on stdin: only its header is read from a pipe'],
          [
            '$0 inspect model.gguf --json --metadata',
            'GGUF metadata with every array whole (the vocabulary); ggml types, shapes ne reversed',
          ],
        ]),
      ),
  run: async (args, io) => {
    const refs = (args.files as readonly string[]).map(String);
    if (refs.filter(isStdio).length > 1) {
      throw usageError('standard input (-) can be used for one input only');
    }
    const format =
      args.format === undefined
        ? undefined
        : choiceOption('format', args.format, REPORT_FORMATS, 'json');
    if (format !== undefined && format !== 'json' && args.json === true) {
      throw usageError(`--json contradicts --format ${format}; give one of them`);
    }
    const inspected: Inspected[] = [];
    for (const ref of refs) inspected.push(await inspectOne(ref, args, io));
    return {
      kind: 'inspect',
      reports: inspected.map((i) => i.report),
      verified: inspected.flatMap((i) => i.verified ?? []),
    };
  },
};
