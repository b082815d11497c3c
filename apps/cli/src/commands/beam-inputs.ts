import type { Argv, Options } from 'yargs';
import { usageError } from '../args/usage-errors.js';
import { loadIndices } from '../input/index-inputs.js';
import { loadInputs } from '../input/inputs.js';
import type { CliIO } from '../run/cli-io.js';
import type { ParsedArgs } from './command.js';

/** The three operands of gather-tree and beams. */
export function withBeamInputs(y: Argv): Argv {
  return y
    .positional('step_ids', {
      type: 'string',
      describe:
        'ids per step [MAX_TIME, BATCH, BEAM]: a tensor reference, a .txt/.csv/.tsv/.json file, or -',
    })
    .positional('parent_ids', {
      type: 'string',
      describe: 'parent beam per step [MAX_TIME, BATCH, BEAM]',
    })
    .positional('max_seq_len', { type: 'string', describe: 'length per batch entry [BATCH]' });
}

/** `--end-token`, which gather-tree and beams require. */
export const END_TOKEN_FLAG = {
  'end-token': { type: 'string', describe: 'the end-of-sequence id', demandOption: true },
} as const satisfies Record<string, Options>;

/** `--end-token` as the exact value the user typed: an integer beyond 2^53 stays a bigint. */
function endTokenOption(value: unknown): number | bigint {
  const text = String(value ?? '').trim();
  if (/^[+-]?\d+$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  const n = Number(text);
  if (text === '' || Number.isNaN(n))
    throw usageError(`--end-token takes a number, got '${value}'`);
  return n;
}

/**
 * What gather-tree and beams start from: the --end-token, the three operands loaded, and the
 * operators, loaded on use (the bundle keeps them out of the start-up path of every other command).
 */
export async function loadBeamSearch(args: ParsedArgs, io: CliIO) {
  const endToken = endTokenOption(args.endToken);
  const refs = [String(args.step_ids), String(args.parent_ids), String(args.max_seq_len)] as const;
  const inputs = await loadInputs(refs, io, loadIndices);
  return { inputs, endToken, ops: await import('@tensorops/gather-tree') };
}
