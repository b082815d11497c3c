import { usageError } from './usage-errors.js';

/**
 * The yargs option of an integer flag. It has no yargs type (the parser keeps the text as typed,
 * see `parse-numbers` in parser.ts) so {@link integerOption} can refuse `1.5`, `0x10` or `1e3`
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
