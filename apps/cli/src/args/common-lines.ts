// The common command lines, read without loading yargs, whose set-up is most of a small run's own
// start-up: a command's name first, then its operands and its flags as `--name value`,
// `--name=value`, `-x value` or a boolean `--name` (not followed by `true` or `false`), each flag
// once. Anything else (no command, help, --version, completion, `--`, a flag the command does not
// take or typed twice, `--no-x`, a value that starts with '-' or is empty, a list flag, a missing
// required flag, a choice not offered, too few or too many operands) is left to yargs (parser.ts),
// which reads every command
// line and words every usage error. For a line read here the arguments are the object yargs
// builds for it, key for key: common-lines.test.ts checks that against yargs.

import type { Options } from 'yargs';
import { type CommandSpec, commandName, type ParsedArgs } from '../commands/command.js';
import { COMMANDS } from '../commands/index.js';

/** `batch-dims` -> `batchDims`: yargs sets both keys. */
const camelCase = (name: string): string =>
  name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The keys yargs sets for a flag: its name, its aliases, and their camel-case forms. */
function keysOf(name: string, option: Options): string[] {
  const names = [name, ...[option.alias ?? []].flat()];
  return [...new Set(names.flatMap((n) => [n, camelCase(n)]))];
}

interface Operand {
  readonly name: string;
  readonly required: boolean;
  readonly variadic: boolean;
}

/** The operands of a yargs command string: `gather <data> [indices_file]`, `inspect <files..>`. */
function operandsOf(spec: CommandSpec): Operand[] {
  return spec.command
    .split(' ')
    .slice(1)
    .map((word) => ({
      name: word.slice(1, -1).replace(/\.\.$/, ''),
      required: word.startsWith('<'),
      variadic: word.endsWith('..>') || word.endsWith('..]'),
    }));
}

/** A flag as typed: its long name and its value (undefined: none after `=`). */
function flagOf(
  word: string,
  spec: CommandSpec,
): { readonly name: string; readonly value: string | undefined } | undefined {
  let typed: string;
  let value: string | undefined;
  if (word.startsWith('--')) {
    const eq = word.indexOf('=');
    typed = eq === -1 ? word.slice(2) : word.slice(2, eq);
    value = eq === -1 ? undefined : word.slice(eq + 1);
  } else if (word.length === 2) typed = word.slice(1);
  else return undefined;
  for (const [name, option] of Object.entries(spec.options)) {
    if (name === typed || [option.alias ?? []].flat().includes(typed)) return { name, value };
  }
  return undefined;
}

/**
 * A value yargs takes as typed: not empty, and not a flag, which a negative integer is not (a lone
 * `-` is standard input or output).
 */
const plainValue = (v: string | undefined): v is string =>
  v !== undefined && v !== '' && (v === '-' || !v.startsWith('-') || /^-\d+$/.test(v));

/**
 * The command and its arguments, as yargs would give them, for a common command line; undefined
 * for any other line, which yargs reads instead.
 */
export function parseCommonLine(
  argv: readonly string[],
): { readonly spec: CommandSpec; readonly args: ParsedArgs } | undefined {
  const spec = COMMANDS.find((c) => commandName(c) === argv[0]);
  if (spec === undefined) return undefined;
  const words: string[] = [];
  const given = new Map<string, string | boolean>();
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '-' || (word !== '' && !word.startsWith('-'))) {
      words.push(word);
      continue;
    }
    const flag = flagOf(word, spec);
    if (flag === undefined || given.has(flag.name)) return undefined;
    const option = spec.options[flag.name] as Options;
    if (option.type === 'boolean' && flag.value === undefined) {
      // yargs takes a following `true` or `false` as the flag's value, not as an operand.
      if (argv[i + 1] === 'true' || argv[i + 1] === 'false') return undefined;
      given.set(flag.name, true);
      continue;
    }
    // The other flags take a value: strings, and integers kept as typed (flag-values.ts).
    if (option.type !== undefined && option.type !== 'string') return undefined;
    if (option.array === true) return undefined;
    const value = flag.value ?? argv[++i];
    if (!plainValue(value)) return undefined;
    if (option.choices !== undefined && ![option.choices].flat().includes(value)) return undefined;
    given.set(flag.name, value);
  }
  const args: Record<string, unknown> = { _: [argv[0]], $0: 'tensorops' };
  for (const [name, option] of Object.entries(spec.options)) {
    const value = given.get(name) ?? option.default;
    if (value === undefined && option.demandOption !== undefined) return undefined;
    if (value !== undefined) for (const key of keysOf(name, option)) args[key] = value;
  }
  for (const operand of operandsOf(spec)) {
    if (operand.variadic) {
      if (operand.required && words.length === 0) return undefined;
      args[operand.name] = words.splice(0);
    } else if (words.length > 0) args[operand.name] = words.shift();
    else if (operand.required) return undefined;
  }
  return words.length === 0 ? { spec, args } : undefined;
}
