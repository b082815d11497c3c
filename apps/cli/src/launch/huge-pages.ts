// Large gather-elements and gather-nd runs, which hold their tensors whole, run with transparent
// huge pages. Every fresh 4 KiB page costs a fault on first touch, and where faults are dear
// (virtual machines) they dominate an op that moves hundreds of MiB. glibc's malloc asks the
// kernel for huge pages when the process starts with the tunable glibc.malloc.hugetlb=1, and a
// tunable is read only at start: so the launcher starts the CLI again with it, when the inputs are
// large enough to repay a second start of node (docs/performance.md). `gather` is left out: its
// large runs move rows through reused buffers (the passes' in WebAssembly memory, which glibc does
// not allocate), and every large shape of it measured slower started twice.
// TENSOROPS_HUGE_PAGES=0 turns this off, 1 asks for it for any command and size.

import { fstatSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { END_SIGNALS } from './end-signals.js';

const TUNABLE = 'glibc.malloc.hugetlb=1';
/** The commands that hold a data tensor and an index tensor whole, with an output as large. */
const COMMANDS = new Set(['gather-elements', 'gather-nd']);
/** A gather is large when its data is at least this big and its indices at least INDEX_BYTES. */
export const DATA_BYTES = 64 << 20;
export const INDEX_BYTES = 1 << 20;

type Env = Readonly<Record<string, string | undefined>>;

/** Whether to start the CLI again under the huge-page tunable (see the header). */
export function wantsHugePages(argv: readonly string[], env: Env): boolean {
  const setting = env.TENSOROPS_HUGE_PAGES;
  if (setting === '0' || process.platform !== 'linux') return false;
  // Set already: this is the relaunched CLI, or the user's own choice.
  if ((env.GLIBC_TUNABLES ?? '').includes('glibc.malloc.hugetlb')) return false;
  if (setting !== '1' && !isLargeGather(argv)) return false;
  return hugePagesWork();
}

/**
 * A gather-elements or gather-nd command whose first two inputs (data, indices: the first two
 * arguments that name regular files, or `-` for stdin, the output aside) are at least DATA_BYTES
 * and INDEX_BYTES: a cheap stand-in for the plan's size, known before the bundle loads. Data on a
 * pipe is not: the second start of node would hold up the pipe (docs/performance.md).
 */
export function isLargeGather(argv: readonly string[]): boolean {
  const at = argv.findIndex((a) => !a.startsWith('-'));
  if (at < 0 || !COMMANDS.has(argv[at] as string)) return false;
  const sizes: number[] = [];
  let options = true;
  for (let k = at + 1; k < argv.length && sizes.length < 2; k++) {
    const arg = argv[k] as string;
    if (options && arg === '--') options = false;
    else if (options && (arg === '-o' || arg === '--output')) k++;
    else if (arg === '-') {
      const size = stdinBytes();
      if (size === Number.POSITIVE_INFINITY && sizes.length === 0) return false;
      if (size >= 0) sizes.push(size);
    } else if (!options || !arg.startsWith('-')) {
      // Option values (`--axis 0`) name no file and are passed over.
      const size = inputBytes(arg);
      if (size >= 0) sizes.push(size);
    }
  }
  const [data = 0, indices = 0] = sizes;
  return data >= DATA_BYTES && indices >= INDEX_BYTES;
}

/** Size of a regular file named by a path or a `path:tensor` reference; -1 for anything else. */
function inputBytes(arg: string): number {
  const size = fileBytes(arg);
  const colon = arg.lastIndexOf(':');
  return size < 0 && colon > 0 ? fileBytes(arg.slice(0, colon)) : size;
}

function fileBytes(path: string): number {
  try {
    const s = statSync(path);
    return s.isFile() ? s.size : -1;
  } catch {
    return -1;
  }
}

/** A file's size; a pipe's or socket's is unknown: Infinity (its data may be anything). */
function stdinBytes(): number {
  try {
    const s = fstatSync(0);
    if (s.isFile()) return s.size;
    return s.isFIFO() || s.isSocket() ? Number.POSITIVE_INFINITY : -1;
  } catch {
    return -1;
  }
}

/** The kernel offers transparent huge pages, and the C library is glibc 2.35 or later. */
export function hugePagesWork(): boolean {
  try {
    if (readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8').includes('[never]'))
      return false;
  } catch {
    return false;
  }
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } };
  const [major = 0, minor = 0] = (report?.header?.glibcVersionRuntime ?? '').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 35);
}

type Execve = (file: string, args: string[], env: Record<string, string | undefined>) => never;

/**
 * Runs the CLI script again with the tunable and ends as it ends: by replacing this process where
 * node can (process.execve, node >= 22.15), else as a child that gets this process's stdio and
 * signals, whose exit code or signal this process then ends with. When neither can start, calls
 * `onFailure` (having changed nothing), which runs the CLI in this process.
 */
export function relaunchWithHugePages(
  script: string,
  argv: readonly string[],
  onFailure: () => void,
): void {
  const current = process.env.GLIBC_TUNABLES;
  const env = { ...process.env, GLIBC_TUNABLES: current ? `${current}:${TUNABLE}` : TUNABLE };
  const args = [...process.execArgv, script, ...argv];
  const execve = (process as { execve?: Execve }).execve;
  if (typeof execve === 'function') {
    try {
      execve(process.execPath, [process.execPath, ...args], env);
    } catch {
      onFailure();
      return;
    }
  }
  // Required here, not imported: node:child_process is loaded only by a run that relaunches.
  const { spawn } = createRequire(import.meta.url)(
    'node:child_process',
  ) as typeof import('node:child_process');
  const child = spawn(process.execPath, args, { stdio: 'inherit', env });
  // A signal sent to this process goes on to the CLI, which cleans up and ends by it; a signal
  // from the terminal reaches both, and the CLI handles a repeat as the same request.
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  for (const signal of END_SIGNALS) process.on(signal, forward);
  const stopForwarding = (): void => {
    for (const signal of END_SIGNALS) process.off(signal, forward);
  };
  let started = false;
  child.once('spawn', () => {
    started = true;
  });
  // Only a failure to start falls back; a signal that could not be passed on is not one.
  child.on('error', () => {
    if (started) return;
    stopForwarding();
    onFailure();
  });
  child.once('exit', (code, signal) => {
    stopForwarding();
    if (signal !== null) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
}
