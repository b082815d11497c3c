import { usageError } from './usage-errors.js';

// Byte counts typed on the command line: `1000000`, `200MB`, `1.5G`, `512KiB`.
//
// k, M, G and T (with or without a trailing B) are powers of 1000, as SI and disk and download
// sizes count them; KiB, MiB, GiB and TiB are powers of 1024. Units are matched without regard to
// case. The count is exact: a fraction is kept in integers until the unit scales it, and the
// result, rounded down to a whole byte, must be a safe integer.

/** What `--help` says about the units a size flag takes. */
export const BYTE_SIZE_UNITS_HELP = 'k, M, G, T: powers of 1000; KiB, MiB, GiB, TiB: of 1024';

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['', 1n],
  ['b', 1n],
  ['k', 1000n],
  ['kb', 1000n],
  ['m', 1000n ** 2n],
  ['mb', 1000n ** 2n],
  ['g', 1000n ** 3n],
  ['gb', 1000n ** 3n],
  ['t', 1000n ** 4n],
  ['tb', 1000n ** 4n],
  ['kib', 1024n],
  ['mib', 1024n ** 2n],
  ['gib', 1024n ** 3n],
  ['tib', 1024n ** 4n],
]);

/** Digits, an optional fraction, then a unit: each part matched once, so linear in the text. */
const SIZE = /^(\d+)(?:\.(\d+))?[ \t]*([a-z]*)$/i;

/** Longest text read: a byte count a safe integer holds never needs more. */
const MAX_LENGTH = 64;

/** The byte count of `--name` (undefined: `fallback`); anything else is a usage error. */
export function byteSizeOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value).trim();
  const refuse = () =>
    usageError(
      `--${name} takes a byte count such as 1000000 or 200MB (${BYTE_SIZE_UNITS_HELP}), got '${text.slice(0, MAX_LENGTH)}'`,
    );
  const match = text.length <= MAX_LENGTH ? SIZE.exec(text) : null;
  if (match === null) throw refuse();
  const [, whole = '', fraction = '', unit = ''] = match;
  const scale = UNITS.get(unit.toLowerCase());
  if (scale === undefined) throw refuse();
  const denominator = 10n ** BigInt(fraction.length);
  const bytes = (BigInt(whole + fraction) * scale) / denominator;
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) throw refuse();
  return Number(bytes);
}
