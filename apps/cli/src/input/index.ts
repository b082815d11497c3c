// input/: reading the tensors a command names.
// inputs.ts        a tensor reference (file, FILE:NAME, URL, or - for stdin) loaded or opened
// index-inputs.ts  the index operand: a tensor, a text file of integers, stdin, or --indices
// stdin.ts         standard input as what it is: a regular file read by range, or a stream
// remote.ts        http(s):// inputs: headers, download limit, time budget, notes
// http-flags.ts    the flags of http(s):// inputs
// tensor-names.ts  picking a tensor by name, and errors that list names within one line
// name-glob.ts     the fnmatch-style glob of inspect --filter
// verify.ts        inspect --verify: every byte of a stored tensor read and checked
export {};
