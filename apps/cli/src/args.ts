import { TensorOpsError } from '@tensorops/core';

/**
 * yargs turns a bare `-` positional into "" or true and rejects `--output -`, so `-` is swapped
 * for this sentinel before parsing and mapped back to "standard input/output" afterwards.
 */
export const STDIO_SENTINEL = '\u0000stdio';

export function protectDashes(argv: readonly string[]): string[] {
  return argv.map((a) => (a === '-' ? STDIO_SENTINEL : a));
}

export function isStdio(ref: string): boolean {
  return ref === STDIO_SENTINEL || ref === '-';
}

export function usageError(message: string): TensorOpsError {
  return new TensorOpsError('E_USAGE', message);
}

/** `--axis abc` would parse to NaN in yargs: integer flags are taken as strings and checked here. */
export function integerOption(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
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
