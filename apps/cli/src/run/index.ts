// run/: one invocation, from a command line to an exit code.
// main.ts             parses, runs the command, hands its result to the output, maps errors to exit codes
// cli-io.ts           the streams and environment a run uses (tests pass their own)
// exit-codes.ts       exit codes, and the one stderr line of an error
// error-wording.ts    the libraries' option names in an error message replaced by the CLI's flags
// shorten-message.ts  an error message cut to one readable line, keeping its reason
export {};
