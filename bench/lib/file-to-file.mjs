// W8: whole processes, file to file. `tensorops gather` (the built bin) against the numpy
// one-liner, on the same .npy inputs, with wall time and peak RSS of each process.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeNpy } from '../../packages/io/dist/index.js';
import { median } from './timing.mjs';

export const CLI = fileURLToPath(new URL('../../apps/cli/dist/tensorops.js', import.meta.url));
const TIME = '/usr/bin/time';
export const NUMPY_SCRIPT =
  'import sys, numpy as np; d, i, o = sys.argv[1:]; ' +
  'np.save(o, np.take(np.load(d), np.load(i), axis=0))';

/**
 * Runs argv to completion: wall ms (taken here) and peak RSS in MB, from GNU time's %M when
 * /usr/bin/time exists, else from polling /proc/PID/status VmHWM (the high-water mark).
 */
async function measure(argv, env) {
  if (existsSync(TIME)) {
    const t0 = performance.now();
    const r = spawnSync(TIME, ['-f', '%M', ...argv], { encoding: 'utf8', env });
    const ms = performance.now() - t0;
    const lines = r.stderr.trim().split('\n');
    if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${lines.slice(-2).join(' ')}`);
    return { ms, rssMB: Number(lines.pop()) / 1024 };
  }
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env });
    let hwm = 0;
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) hwm = Math.max(hwm, Number(m[1]));
      } catch {}
    }, 2);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      clearInterval(poll);
      if (code !== 0) reject(new Error(`${argv.join(' ')} failed: ${stderr.trim()}`));
      else resolve({ ms, rssMB: hwm / 1024 });
    });
  });
}

function sameNpy(a, b) {
  const x = decodeNpy(readFileSync(a));
  const y = decodeNpy(readFileSync(b));
  return (
    x.dtype === y.dtype &&
    x.shape.join() === y.shape.join() &&
    Buffer.compare(Buffer.from(x.data.buffer, x.data.byteOffset, x.data.byteLength), y.data) === 0
  );
}

/** The glibc tunable that makes malloc ask for transparent huge pages (glibc >= 2.35). */
export const THP_TUNABLE = 'glibc.malloc.hugetlb=1';

/** `env` with THP_TUNABLE added to GLIBC_TUNABLES. */
export function withThp(env) {
  const current = env.GLIBC_TUNABLES ? `${env.GLIBC_TUNABLES}:` : '';
  return { ...env, GLIBC_TUNABLES: `${current}${THP_TUNABLE}` };
}

/** `env` without THP_TUNABLE, whatever the bench itself runs with. */
function withoutThp(env) {
  const rest = (env.GLIBC_TUNABLES ?? '')
    .split(':')
    .filter((t) => t && t !== THP_TUNABLE)
    .join(':');
  const out = { ...env };
  if (rest) out.GLIBC_TUNABLES = rest;
  else delete out.GLIBC_TUNABLES;
  return out;
}

/**
 * Runs the processes in turn, round after round (a warm-up round first, so every one reads its
 * inputs from the page cache), and reports medians. tensorops runs twice: as installed, and with
 * glibc's malloc asking for huge pages, which is what its buffers of hundreds of MB page-fault
 * on. `python` is null when numpy is absent.
 */
export async function fileToFile({ dir, runs, python }) {
  const data = join(dir, 'data.npy');
  const indices = join(dir, 'indices.npy');
  const gatherArgs = (out, from = data) => [CLI, 'gather', from, indices, '--axis', '0', '-o', out];
  const procs = [
    {
      label: 'tensorops gather',
      argv: [process.execPath, ...gatherArgs(join(dir, 'out-1.npy'))],
      env: withoutThp(process.env),
      out: join(dir, 'out-1.npy'),
    },
    {
      label: `GLIBC_TUNABLES=${THP_TUNABLE} tensorops gather`,
      argv: [process.execPath, ...gatherArgs(join(dir, 'out-2.npy'))],
      env: withThp(withoutThp(process.env)),
      out: join(dir, 'out-2.npy'),
    },
    {
      // stdin cannot be range-read: the CLI loads the data whole and runs the in-memory kernel
      label: 'tensorops gather - (data .npy on stdin, loaded whole)',
      argv: [
        'sh',
        '-c',
        'exec "$0" "$@" < "$DATA"',
        process.execPath,
        ...gatherArgs(join(dir, 'out-3.npy'), '-'),
      ],
      env: { ...withoutThp(process.env), DATA: data },
      out: join(dir, 'out-3.npy'),
    },
  ];
  if (python) {
    procs.push({
      label: 'python3: np.save(o, np.take(np.load(d), np.load(i), axis=0))',
      argv: [python, '-c', NUMPY_SCRIPT, data, indices, join(dir, 'out-np.npy')],
      env: process.env,
      out: join(dir, 'out-np.npy'),
      numpy: true,
    });
  }
  const samples = procs.map(() => []);
  for (let i = 0; i <= runs; i++) {
    for (const [k, p] of procs.entries()) {
      rmSync(p.out, { force: true });
      const m = await measure(p.argv, p.env);
      if (i > 0) samples[k].push(m);
    }
  }
  const reference = procs.at(-1).out;
  const result = procs.map((p, k) => ({
    label: p.label,
    ms: median(samples[k].map((x) => x.ms)),
    rssMB: median(samples[k].map((x) => x.rssMB)),
    verified: p.out === reference ? true : sameNpy(p.out, reference),
  }));
  for (const p of procs) rmSync(p.out, { force: true });
  const numpy = python ? result.at(-1) : undefined;
  return { procs: result, numpy, verified: result.every((p) => p.verified) };
}
