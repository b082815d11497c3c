/** What the output flags of a run ask of the sinks; each command takes the flags it uses. */
export interface OutputOptions {
  /** -o/--output: a path (FILE.npz:NAME / FILE.safetensors:NAME names the tensor), `-` for stdout, or undefined. */
  readonly output?: string | undefined;
  /** --format: npy, npz, safetensors, json, csv or tsv (checked by chooseFormat). */
  readonly format?: string | undefined;
  readonly json: boolean;
  /** --header: a `#` comment line before CSV / TSV rows. */
  readonly header?: boolean;
  /** --force: `-o FILE.npz:NAME` may replace a file that holds other tensors. */
  readonly force?: boolean;
  readonly quiet: boolean;
  /** The --color flag (false for --no-color); NO_COLOR and TERM=dumb are read from the env too. */
  readonly color: boolean;
}

/** The output options of parsed arguments; a flag the command does not take reads as not given. */
export function outputOptions(args: Readonly<Record<string, unknown>>): OutputOptions {
  return {
    output: args.output as string | undefined,
    format: args.format as string | undefined,
    json: args.json === true,
    header: args.header === true,
    force: args.force === true,
    quiet: args.quiet === true,
    color: args.color !== false,
  };
}
