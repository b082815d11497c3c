// args/: the command line, read with yargs.
// parser.ts            the yargs parser (every command with its flags) and what a command line asks for
// dashes.ts            `-` and the words after `--`, hidden from yargs and restored after it
// flag-values.ts       integer and choice flags, checked as typed
// usage-errors.ts      usage errors, and yargs' messages rewritten as one line in the CLI's words
// short-usage.ts       the short usage `tensorops` alone prints
// completion.ts        shell completion: the candidates (by yargs) and the script to install
// completion-scripts.ts the bash and zsh completion scripts
// yargs-help.ts        the one reach into yargs internals: help rendered only when shown
export {};
