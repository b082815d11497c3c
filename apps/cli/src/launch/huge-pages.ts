// Large runs of the commands that hold their data and index tensors whole and gain from it
// (gather-nd, whose spec names them: wholeTensorInputs) run with transparent huge pages. Every
// fresh 4 KiB page costs a fault on first touch, and where faults are dear (virtual machines) they
// dominate an op that moves hundreds of MiB. glibc's malloc asks the kernel for huge pages when
// the process starts with the tunable glibc.malloc.hugetlb=1, and a tunable is read only at
// start: so once the command line is parsed, and before the command reads anything, the CLI
// starts again with it, when the inputs are large enough to repay a second start of node. Indices
// on a pipe or socket count as large; data there does not (see isLargeGather). The CLI started
// again does what this one would have done: same bytes, exit codes and error lines. `gather` is
// left out: its large runs move rows through reused buffers (the passes' in WebAssembly memory,
// which glibc does not allocate), and its large runs measured slower started twice; so are
// gather-elements' (with the kernel's THP defrag on `madvise`, a huge page faulted in on a busy
// machine may first wait for compaction: docs/performance.md).
// TENSOROPS_HUGE_PAGES=0 turns this off, 1 asks for it for any command and size.

import { fstatSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { END_SIGNALS } from './end-signals.js';

const TUNABLE = 'glibc.malloc.hugetlb=1';
/** A gather is large when its data is at least this big and its indices at least INDEX_BYTES. */
export const DATA_BYTES = 64 << 20;
export const INDEX_BYTES = 1 << 20;

type Env = Readonly<Record<string, string | undefined>>;

/** The data and index operands of a command that holds both whole (undefined: inline indices). */
export type WholeTensorInputs = readonly [data: string, indices: string | undefined];

/**
 * Whether to start the CLI again under the huge-page tunable (see the header), for a command
 * whose inputs are `inputs` (undefined: a command that does not hold its tensors whole).
 */
export function wantsHugePages(inputs: WholeTensorInputs | undefined, env: Env): boolean {
  const setting = env.TENSOROPS_HUGE_PAGES;
  if (setting === '0' || process.platform !== 'linux') return false;
  // Set already: this is the relaunched CLI, or the user's own choice.
  if ((env.GLIBC_TUNABLES ?? '').includes('glibc.malloc.hugetlb')) return false;
  if (setting !== '1' && (inputs === undefined || !isLargeGather(inputs))) return false;
  return hugePagesWork();
}

/**
 * Data and indices (regular files, or `-` for stdin) of at least DATA_BYTES and INDEX_BYTES: a
 * cheap stand-in for the plan's size, known before anything is read. Data on a pipe is not: the
 * second start of node would hold up the pipe.
 */
export function isLargeGather([data, indices]: WholeTensorInputs): boolean {
  const dataBytes = data === '-' ? stdinBytes() : inputBytes(data);
  if (dataBytes === Number.POSITIVE_INFINITY) return false;
  const indexBytes =
    indices === undefined ? -1 : indices === '-' ? stdinBytes() : inputBytes(indices);
  return dataBytes >= DATA_BYTES && indexBytes >= INDEX_BYTES;
}

/** Size of a regular file named by a path or a `path:tensor` reference; -1 for anything else. */
function inputBytes(ref: string): number {
  const size = fileBytes(ref);
  const colon = ref.lastIndexOf(':');
  return size < 0 && colon > 0 ? fileBytes(ref.slice(0, colon)) : size;
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
 * signals, whose exit code this resolves to, or whose signal this process then ends by. When
 * neither can start, resolves to undefined (having changed nothing): the CLI runs in this process.
 */
export function relaunchWithHugePages(
  script: string,
  argv: readonly string[],
): Promise<number | undefined> {
  const current = process.env.GLIBC_TUNABLES;
  const env = { ...process.env, GLIBC_TUNABLES: current ? `${current}:${TUNABLE}` : TUNABLE };
  const args = [...process.execArgv, script, ...argv];
  const execve = (process as { execve?: Execve }).execve;
  if (typeof execve === 'function') {
    try {
      execve(process.execPath, [process.execPath, ...args], env);
    } catch {
      return Promise.resolve(undefined);
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
  return new Promise((resolve) => {
    let started = false;
    child.once('spawn', () => {
      started = true;
    });
    // Only a failure to start falls back; a signal that could not be passed on is not one.
    child.on('error', () => {
      if (started) return;
      stopForwarding();
      resolve(undefined);
    });
    child.once('exit', (code, signal) => {
      stopForwarding();
      if (signal !== null) process.kill(process.pid, signal);
      else resolve(code ?? 1);
    });
  });
}
