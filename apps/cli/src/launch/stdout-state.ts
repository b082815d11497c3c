import { fstatSync, readFileSync } from 'node:fs';
import type { CliStream } from '../run/cli-io.js';

// Node opens /dev/null (read-write) on a standard descriptor that was closed at start (`>&-`), so
// output written there would vanish with exit 0. A shell redirect `> /dev/null` opens it
// write-only: the read-write null device on descriptor 1 is how a closed stdout looks (Linux).

const NULL_DEVICE = (1 << 8) | 3;
const O_ACCMODE = 3;
const O_RDWR = 2;

/** True when standard output was closed when the process started. */
export function stdoutWasClosed(): boolean {
  try {
    const stats = fstatSync(1);
    if (!stats.isCharacterDevice() || stats.rdev !== NULL_DEVICE) return false;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/1', 'utf8'));
    return flags !== null && (Number.parseInt(flags[1] as string, 8) & O_ACCMODE) === O_RDWR;
  } catch {
    return false;
  }
}

/** Standard output when it is closed: every write fails, so no result is silently lost. */
export const closedStdout: CliStream = {
  isTTY: false,
  write(_chunk, callback) {
    const error = Object.assign(new Error('standard output is closed'), { code: 'EBADF' });
    queueMicrotask(() => callback?.(error));
    return false;
  },
};
