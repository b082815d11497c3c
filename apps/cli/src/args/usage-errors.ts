import { TensorOpsError } from '@tensorops/core';
import { type CommandSpec, commandName } from '../commands/command.js';
import { editDistanceWithin, typoLimit } from './edit-distance.js';

/** A usage error: one line on stderr, exit 2. */
export function usageError(message: string): TensorOpsError {
  return new TensorOpsError('E_USAGE', message);
}

/** What a rewrite of a yargs message may look at: the words typed and the flags the command has. */
export interface UsageContext {
  /** The arguments as typed (after the `-` and `--` protection). */
  readonly argv: readonly string[];
  /** Long names of the flags the command accepts (kebab-case, no dashes). */
  readonly flags: readonly string[];
  /** The words typed after `--`, which are operands even when they look like options. */
  readonly operands?: readonly string[];
  /**
   * The command named, whose `refuses` words a flag of another command and whose options say
   * what a missing required flag is.
   */
  readonly command?: Pick<CommandSpec, 'command' | 'refuses'> &
    Partial<Pick<CommandSpec, 'options'>>;
  /** Each flag some command takes, by long name and alias, mapped to its long name. */
  readonly otherFlags?: ReadonlyMap<string, string>;
}

/**
 * yargs reports usage errors in its own words ("Invalid values:", "Unknown argument: axs", over
 * several lines); these become one line that names the flag and what it takes.
 */
export function usageErrorOf(message: string, context: UsageContext): TensorOpsError {
  // Named first: where it stands, such a flag can make yargs read the words around it wrongly.
  const notTaken = flagOfAnotherCommand(context);
  if (notTaken !== undefined) return notTaken;
  // `-:NAME` reads as short flags; it means a tensor by name on standard input, which holds one.
  const namedStdin = context.argv.find((a) => a.startsWith('-:'));
  if (namedStdin !== undefined) {
    return usageError(`'${namedStdin}': standard input takes no tensor name; give '-' alone`);
  }
  const unknown = /^Unknown arguments?: (.+)$/.exec(firstLine(message));
  if (unknown) return unknownArgument((unknown[1] as string).split(', ')[0] as string, context);
  const choices = /Argument: (\S+), Given: (.+), Choices: (.+)$/m.exec(message);
  if (choices) {
    const [, flag, given, list] = choices as unknown as [string, string, string, string];
    return usageError(`--${flag} takes one of ${unquote(list)}, got ${given.replaceAll('"', "'")}`);
  }
  const missing = /^Not enough arguments following: (\S+)$/.exec(firstLine(message));
  if (missing) return usageError(`--${missing[1]} needs a value`);
  const required = /^Missing required arguments?: (.+)$/.exec(firstLine(message));
  if (required) return missingOptions((required[1] as string).split(', '), context);
  const operands = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(
    firstLine(message),
  );
  if (operands) {
    // A file whose name starts with - reads as an option: say how to pass it.
    const dashed = context.argv.find((a) => /^-[^-].*\.\w+$/.test(a));
    // Else an unknown flag took the operand after it as its value: name the flag.
    const stray =
      dashed === undefined ? context.argv.find((a) => isUnknownFlag(a, context)) : undefined;
    if (stray !== undefined) return unknownArgument(flagName(stray), context);
    const hint =
      dashed === undefined ? '' : ` ('${dashed}' reads as an option: put files after --)`;
    return usageError(`missing operands: got ${operands[1]}, need at least ${operands[2]}${hint}`);
  }
  return usageError(firstLine(message));
}

/**
 * Flags a command requires but was not given (yargs' demandOption): each named as typed, with
 * what it is, and the command that needs it.
 */
function missingOptions(names: readonly string[], context: UsageContext): TensorOpsError {
  const { command } = context;
  const flags = names
    .map((name) => {
      const describe = command?.options?.[name]?.describe;
      return describe === undefined ? `--${name}` : `--${name} (${describe})`;
    })
    .join(' and ');
  if (command === undefined) return usageError(`missing ${flags} (see --help)`);
  const name = commandName(command);
  return usageError(`missing ${flags}, which ${name} requires (see tensorops ${name} --help)`);
}

function unknownArgument(word: string, context: UsageContext): TensorOpsError {
  const typed = context.argv.find((a) => /^--?[^-]/.test(a) && flagName(a) === word);
  if (typed === undefined) {
    // `gather -- -x.npy --indices 1`: the option was meant, but `--` made it an operand.
    const option = context.operands?.find(
      (a) => /^--?[^-]/.test(a) && context.flags.includes(flagName(a)),
    );
    const hint =
      option === undefined ? '' : ` ('${option}' is after --, so an operand, not an option)`;
    return usageError(`unexpected argument '${word}'${hint}`);
  }
  const dashes = typed.startsWith('--') ? '--' : '-';
  const suggestion = closest(word, context.flags);
  return usageError(
    suggestion === undefined
      ? `unknown option ${dashes}${word} (see --help)`
      : `unknown option ${dashes}${word}; did you mean --${suggestion}?`,
  );
}

/**
 * A flag another command takes, typed for one that does not (as `--flag`, `--flag=value`,
 * `--no-flag` or its alias): in the command's words if it has some.
 */
function flagOfAnotherCommand(context: UsageContext): TensorOpsError | undefined {
  const { command, otherFlags } = context;
  if (command === undefined || otherFlags === undefined) return undefined;
  for (const arg of context.argv) {
    if (!/^--?[^-]/.test(arg)) continue;
    const flag = longFlagOf(arg, context);
    if (!otherFlags.has(flag) || context.flags.includes(flag)) continue;
    const words = commandName(command);
    return usageError(
      command.refuses?.[flag] ?? `${words} does not take --${flag} (see tensorops ${words} --help)`,
    );
  }
  return undefined;
}

/**
 * Whether `arg` is typed as a flag (`--name`, `--name=value`, `--no-name`, `-x`; not `-` nor a
 * negative number) that the command takes under no name or alias.
 */
function isUnknownFlag(arg: string, context: UsageContext): boolean {
  return /^--?[^-\d]/.test(arg) && !context.flags.includes(longFlagOf(arg, context));
}

/**
 * The long name of the flag `arg` is typed as, by name, alias or `no-` negation, where some
 * command or the top level takes it; else its name as typed.
 */
function longFlagOf(arg: string, context: UsageContext): string {
  const name = flagName(arg);
  const bare = name.replace(/^no-/, '');
  const { otherFlags, flags } = context;
  return otherFlags?.get(name) ?? otherFlags?.get(bare) ?? (flags.includes(bare) ? bare : name);
}

/** A flag's name as typed, without its dashes or value: `--no-axis=3` → `no-axis`. */
function flagName(arg: string): string {
  return arg.replace(/^--?/, '').replace(/=.*$/, '');
}

/** The flag nearest to `word` by edit distance, when it is close enough to be a typo. */
export function closest(word: string, flags: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = typoLimit(word) + 1;
  for (const flag of flags) {
    const d = editDistanceWithin(word, flag, bestDistance - 1);
    if (d < bestDistance) [best, bestDistance] = [flag, d];
  }
  return best;
}

function unquote(list: string): string {
  return list.replaceAll('"', '');
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
