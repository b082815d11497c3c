// The CLI bundle's entry (dist/tensorops-main.cjs, which launch.ts starts): owns the process (its
// standard streams, signals, EPIPE and exit code) and runs one invocation (run/main.ts).
//
// Whatever a run may not need is loaded on first use, not at start-up: the zip libraries and
// node:assert (see apps/cli/scripts/bundle.mjs), the UI, node:child_process (only to relaunch),
// node:worker_threads (only to copy a pipe), and Node's stream classes: the standard streams are
// set up when first used, node:net, node:zlib and node:stream are loaded where a FIFO, socket or
// .npz needs them, and files are read and written through descriptors and node:fs callbacks, not
// node:fs/promises. No module-level value may do work a run might not need (a Date from local
// time fields reads the host's time zone). apps/cli/test/startup.e2e.test.ts checks a real run.

import { readFileSync } from 'node:fs';
import { removePendingTempFilesSync } from '@tensorops/io/node';
import type { CliStream } from '../run/cli-io.js';
import { EXIT_FAILURE, errorLine } from '../run/exit-codes.js';
import { type HandOff, run } from '../run/main.js';
import { END_SIGNALS } from './end-signals.js';
import { relaunchWithHugePages, wantsHugePages } from './huge-pages.js';
import { closedStdout, stdoutWasClosed } from './stdout-state.js';

const STALLED = 'the command stopped before it finished: nothing it waited for could happen';

// The standard streams are set up on first use: a run that writes its result to a file and
// prints nothing never loads the stream classes behind them, whose loading is start-up time.
let stdout: CliStream | undefined;
const standardOutput = (): CliStream => {
  if (stdout === undefined && stdoutWasClosed()) stdout = closedStdout;
  if (stdout === undefined) {
    // A failed write is reported by the write that failed (main.ts prints one line); this
    // handler only keeps the stream's 'error' event from becoming an uncaught exception. Closing
    // the pipe early (`| head`) is a normal exit.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      process.exitCode = 1;
    });
    stdout = process.stdout;
  }
  return stdout;
};

// A signal that ends the process removes the temp files of atomic writes (targets stay as they
// were), then ends the process by the same signal, so the shell sees 128+N. Re-raising it with
// the default action ends the process at once, even while a worker thread is blocked (opening a
// FIFO nobody writes to), which process.exit() would wait for. A second signal during the clean-up
// (the terminal's and the first CLI's copy of one Ctrl-C) is the same request and is ignored.
let ending = false;
const endBySignal = (signal: NodeJS.Signals): void => {
  if (ending) return;
  ending = true;
  removePendingTempFilesSync();
  for (const s of END_SIGNALS) process.off(s, endBySignal);
  process.kill(process.pid, signal);
};
for (const signal of END_SIGNALS) process.on(signal, endBySignal);

// A command whose work waits on something that can no longer happen leaves the event loop
// empty, and node then ends with status 0, as if it had succeeded. That is a failure, told as
// one: the temp files of atomic writes go, and the status is 1.
let finished = false;
process.once('beforeExit', () => {
  if (finished) return;
  removePendingTempFilesSync();
  process.stderr.write(errorLine(new Error(STALLED), process.env.TENSOROPS_DEBUG === '1'));
  process.exitCode = EXIT_FAILURE;
});

// A large run of a command that holds its tensors whole goes on in a CLI started again with huge
// pages (huge-pages.ts), before it has read or written anything. That CLI handles the signals,
// which this process passes on; it removes its own temp files. If it cannot start, the command
// runs here, as if nothing had happened.
const withHugePages: HandOff = (spec, args) => {
  if (!wantsHugePages(spec.wholeTensorInputs?.(args), process.env)) return undefined;
  for (const s of END_SIGNALS) process.off(s, endBySignal);
  return relaunchWithHugePages(process.argv[1] as string, process.argv.slice(2)).then((code) => {
    if (code === undefined) for (const s of END_SIGNALS) process.on(s, endBySignal);
    return code;
  });
};

// This module runs only as the bundle dist/tensorops-main.cjs (scripts/bundle.mjs), whose
// import.meta.url is that file: package.json is one folder up.
const VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;

// exitCode, not process.exit(): exiting right after a large stdout write truncates piped output.
run(
  process.argv.slice(2),
  {
    // Getters: touching process.stdin sets up a stream, start-up work for most runs, which never read it.
    get stdin() {
      return process.stdin;
    },
    stdinFd: 0,
    get stdout() {
      return standardOutput();
    },
    get stderr() {
      return process.stderr;
    },
    env: process.env,
  },
  { version: VERSION, handOff: withHugePages },
).then((code) => {
  finished = true;
  process.exitCode = code;
});
