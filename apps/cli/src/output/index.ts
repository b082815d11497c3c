// output/: where a command's result goes, and in what form.
// emit-result.ts   routes each kind of result to its sink, and releases its inputs after
// tensor-sink.ts   tensors to a file or stdout in the chosen format, or to the terminal view
// entry.ts         a tensor to write, and the one a single-tensor sink takes
// entry-names.ts   the names tensors are stored under in a container
// clobber-check.ts -o FILE.npz:NAME refused where it would drop other tensors (unless --force)
// progress.ts      the byte progress bar of streamed work
// options.ts       what the output flags of a run ask of the sinks
// flags.ts         the output flags, for the commands that take them
// beams.ts         decoded beams as text: json, csv/tsv, lines, or a table on a terminal
// inspect.ts       inspect reports as --json, a plain table, or a table on a terminal
// inspect-report.ts the inspect report, built by the command and printed here
export {};
