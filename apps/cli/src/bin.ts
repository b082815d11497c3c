import { removePendingTempFilesSync } from '@tensorops/io/node';
import { run } from './main.js';

// Closing the pipe early (`| head`) is a normal exit, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// On Ctrl-C or a kill, no half-written output may remain: drop the temp files of atomic writes.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    removePendingTempFilesSync();
    process.exit(code);
  });
}

// exitCode, not process.exit(): exiting right after a large stdout write truncates piped output.
run(process.argv.slice(2), {
  // A getter: touching process.stdin sets up a stream (~1 ms) that most runs never read.
  get stdin() {
    return process.stdin;
  },
  stdinFd: 0,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
