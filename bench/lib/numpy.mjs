// numpy as a peer: bench/numpy-peer.py in a python3 subprocess, timing itself in-process with
// time.perf_counter on the same input bytes (passed as .npy files in a temp dir).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PEER = fileURLToPath(new URL('../numpy-peer.py', import.meta.url));
// biome-ignore lint/suspicious/noUndeclaredEnvVars: bench scripts run outside turbo's tasks
export const PYTHON = process.env.PYTHON ?? 'python3';

/**
 * numpy's version and the interpreter's real path (`sys.executable`), or `{ skip }` when python3
 * or numpy is missing. Whole-process runs start that path: a version manager's shim (pyenv's)
 * adds a shell script and a second interpreter start to every run and would flatter tensorops.
 */
export function probeNumpy() {
  const r = spawnSync(
    PYTHON,
    ['-c', 'import sys, numpy; print(numpy.__version__); print(sys.executable)'],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) {
    const why = r.error ? `${PYTHON} not found` : 'numpy not importable';
    return { skip: why };
  }
  const [version, executable] = r.stdout.trim().split('\n');
  return { version, executable: executable || PYTHON };
}

/** Runs every numpy variant of one workload; returns the parsed report or `{ error }`. */
export function runNumpy({ op, params, dir, runs, warmup }) {
  const spec = JSON.stringify({ op, params, dir, runs, warmup });
  const r = spawnSync(PYTHON, [PEER, spec], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) {
    const last = (r.stderr || r.error?.message || '').trim().split('\n').pop();
    return { error: `numpy peer failed: ${last}` };
  }
  return JSON.parse(r.stdout);
}
