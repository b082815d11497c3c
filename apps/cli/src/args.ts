import { TensorOpsError } from '@tensorops/core';

/**
 * yargs turns a bare `-` positional into "" or true and rejects `--output -`, so `-` is swapped
 * for this sentinel before parsing and mapped back to "standard input/output" afterwards.
 */
export const STDIO_SENTINEL = '\u0000stdio';

/**
 * Words after `--` are operands even when they start with `-`: they are hidden from yargs behind
 * this prefix (so they fill positionals instead of reading as options) and unwrapped after parsing.
 */
const OPERAND_PREFIX = '\u0000operand:';

export function protectDashes(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const operands = end === -1 ? [] : argv.slice(end + 1);
  return [
    ...options.map((a) => (a === '-' ? STDIO_SENTINEL : a)),
    ...operands.map((a) => (a === '-' ? STDIO_SENTINEL : `${OPERAND_PREFIX}${a}`)),
  ];
}

/** Undoes the operand hiding of {@link protectDashes} in every parsed value. */
export function unwrapOperands(args: Record<string, unknown>): Record<string, unknown> {
  const unwrap = (v: unknown): unknown =>
    typeof v === 'string' && v.startsWith(OPERAND_PREFIX)
      ? v.slice(OPERAND_PREFIX.length)
      : Array.isArray(v)
        ? v.map(unwrap)
        : v;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, unwrap(v)]));
}

export function isStdio(ref: string): boolean {
  return ref === STDIO_SENTINEL || ref === '-';
}

export function usageError(message: string): TensorOpsError {
  return new TensorOpsError('E_USAGE', message);
}

/**
 * The yargs option of an integer flag. It has no yargs type (the parser keeps the text as typed,
 * see `parse-numbers` in main.ts) so {@link integerOption} can refuse `1.5`, `0x10` or `1e3`
 * that a number type would coerce; the default is a number so `--help` shows `[default: 0]`.
 * `requiresArg`: a flag given without a value is a usage error instead of its default.
 */
export function integerFlag(describe: string, fallback: number) {
  return { describe: `${describe} (integer)`, default: fallback, requiresArg: true } as const;
}

/** `--axis abc` would parse to NaN in yargs: integer flags are taken as text and checked here. */
export function integerOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  const text = String(value).trim();
  const n = Number(text);
  if (text === '' || !Number.isSafeInteger(n) || !/^[+-]?\d+$/.test(text)) {
    throw usageError(`--${name} takes an integer, got '${value}'`);
  }
  return n;
}

export function choiceOption<T extends string>(
  name: string,
  value: unknown,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (choices.includes(value as T)) return value as T;
  throw usageError(`--${name} takes one of ${choices.join(', ')}, got '${value}'`);
}
