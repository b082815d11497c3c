import { TensorOpsError } from '@tensorops/core';

/**
 * yargs turns a bare `-` positional into "" or true and rejects `--output -`, so `-` is swapped
 * for a placeholder before parsing, and back after it ({@link typedArgs}, {@link typedMessage}).
 * Words after `--` are operands even when they start with `-`: they are hidden from yargs behind
 * a prefix (so they fill positionals instead of reading as options) and unwrapped after parsing.
 * Both start with a NUL, which no word of a command line can hold.
 */
const STDIO = 'stdio';
const OPERAND = 'operand:';
const NUL = '\u0000';

/** argv with `-` and the words after `--` hidden from yargs (see above). */
export function protectDashes(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const operands = end === -1 ? [] : argv.slice(end + 1);
  return [
    ...options.map((a) => (a === '-' ? NUL + STDIO : a)),
    ...operands.map((a) => (a === '-' ? NUL + STDIO : NUL + OPERAND + a)),
  ];
}

/** `text` with the placeholders of {@link protectDashes} (their NUL spelt `nul`) as typed. */
function typed(text: string, nul: string): string {
  return text.replaceAll(nul + STDIO, '-').replaceAll(nul + OPERAND, '');
}

/** Every parsed value as the user typed it: no placeholder ever reaches a command. */
export function typedArgs(args: Record<string, unknown>): Record<string, unknown> {
  const unwrap = (v: unknown): unknown =>
    typeof v === 'string' ? typed(v, NUL) : Array.isArray(v) ? v.map(unwrap) : v;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, unwrap(v)]));
}

/** A yargs message in the user's words; yargs quotes some values as JSON, the NUL as `\u0000`. */
export function typedMessage(message: string): string {
  return typed(typed(message, NUL), JSON.stringify(NUL).slice(1, -1));
}

/** `-`: standard input or output. */
export function isStdio(ref: string): boolean {
  return ref === '-';
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
