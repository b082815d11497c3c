// Whole processes, as a user runs them: `tensorops gather` (the built bin) against the numpy
// one-liner and `node -e 0`, on the same .npy inputs, with the wall time and peak RSS of each
// process. Four workloads: a tiny gather (start-up), W8 (file to file on W1's data), W9 (a
// text pipeline: ids as text in, rows as CSV out) and headers (`inspect` of a .safetensors of
// 10^5 tensors against safetensors' safe_open). Each table is run under a protocol (every process
// after a pause, as a user runs one command, or back to back) and an output case (a new path, or
// an existing output that the process replaces).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { chunksPerPass, PASS_CHUNK_SCALE } from '../../packages/io/dist/fast/passes/sizes.js';
import { DEFAULT_CHUNK_BYTES } from '../../packages/io/dist/file/gather-file/context.js';
import { encodeSafetensors, npyDataOffset, readNpyHeader } from '../../packages/io/dist/index.js';
import { csvFloat32Digest } from './csv-floats.mjs';
import { median, timeMemcpy } from './timing.mjs';

export const CLI = fileURLToPath(new URL('../../apps/cli/dist/tensorops.cjs', import.meta.url));
const TIME = '/usr/bin/time';
export const NUMPY_SCRIPT =
  'import sys, numpy as np; d, i, o = sys.argv[1:]; ' +
  'np.save(o, np.take(np.load(d), np.load(i), axis=0))';

/**
 * Runs argv to completion: wall ms (taken here), peak RSS in MB and user CPU seconds, from GNU
 * time's %M and %U when /usr/bin/time exists, else peak RSS from polling /proc/PID/status VmHWM
 * (the high-water mark) and no user time, and what the process printed. Any exit status but
 * `status` is a failure.
 */
async function measure(argv, env, status = 0) {
  if (existsSync(TIME)) {
    const t0 = performance.now();
    // stdout is a pipe (tensorops takes an ignored stdout for a closed one) that may hold a report
    // of megabytes.
    const r = spawnSync(TIME, ['-f', '%U %M', ...argv], {
      encoding: 'utf8',
      env,
      maxBuffer: 1 << 30,
    });
    const ms = performance.now() - t0;
    const lines = r.stderr.trimEnd().split('\n');
    if (r.status !== status) {
      throw new Error(`${argv.join(' ')} failed: ${lines.slice(-2).join(' ')}`);
    }
    const [userS, rssKB] = (lines.pop() ?? '').split(' ').map(Number);
    const rssMB = rssKB / 1024;
    // After a non-zero status GNU time adds a line of its own before %M.
    if (status !== 0) lines.pop();
    const stderr = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    return { ms, rssMB, userS, stdout: r.stdout, stderr };
  }
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env });
    let hwm = 0;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
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
      if (code !== status) reject(new Error(`${argv.join(' ')} failed: ${stderr.trim()}`));
      else resolve({ ms, rssMB: hwm / 1024, stdout, stderr });
    });
  });
}

/**
 * What a .npy output holds: its parsed header and a digest of its data bytes, read through one
 * reused buffer, so that checking a 256 MB output leaves no 256 MB allocation behind in this
 * process for the next timed process to meet.
 */
function npyDigest(path) {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(2 ** 20);
    const head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
    const offset = npyDataOffset(head);
    const header = readNpyHeader(head.subarray(0, offset), fstatSync(fd).size - offset);
    const hash = createHash('sha256');
    for (let at = offset; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, at);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      at += n;
    }
    return `${JSON.stringify(header)} ${hash.digest('hex')}`;
  } finally {
    closeSync(fd);
  }
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

/** tensorops' environment: no inherited tunable, and a compiled-code cache in the bench's dir. */
export const tensoropsEnv = (dir) => ({
  ...withoutThp(process.env),
  TENSOROPS_CACHE_DIR: join(dir, 'cache'),
});

/**
 * A process of the table: `out` is the file it writes (checked against the reference unless
 * `verify` is false: a reference row that writes something else). Optional, in `more`: `status`,
 * the exit status it must end with (1 for a run that must refuse its input); `check({ stdout,
 * stderr })`, which returns null when the warm-up run printed and wrote the right thing, else what
 * is wrong; `digest`, what the output holds (default: the .npy header and data).
 */
export const proc = (label, argv, env, out, role, verify = true, more = {}) => ({
  label,
  argv,
  env,
  out,
  role,
  verify,
  status: 0,
  digest: npyDigest,
  ...more,
});

/** numpy's one-liner with the interpreter's real path (see probeNumpy). */
const numpyProc = (python, data, indices, out) =>
  proc(
    `numpy one-liner (${python})`,
    [python, '-c', NUMPY_SCRIPT, data, indices, out],
    process.env,
    out,
    'numpy',
  );

/** `node -e 0`: node's own start, what any tensorops process pays first. */
export const nodeStart = (label, role) =>
  proc(label, [process.execPath, '-e', '0'], process.env, null, role);

const IO_FLOOR = fileURLToPath(new URL('../io-floor.mjs', import.meta.url));
const SCATTER_SPAN = fileURLToPath(new URL('../scatter-span.py', import.meta.url));

/**
 * The floor of a file-to-file gather whose output is as large as its data (W8's shape), role
 * `floor`: node reading the data as many times as the gather does (once for a scan, once a pass
 * for the passes: fast/passes/sizes.ts), overlapped with one write of as many bytes to `out`,
 * with no gather (bench/io-floor.mjs).
 */
export function ioFloor(data, out) {
  const { reads } = passesOf(statSync(data).size);
  const label = `the gather's I/O alone: ${reads === 1 ? 'one read' : `${reads} reads`} of the data beside one write (node, for reference)`;
  const argv = [process.execPath, IO_FLOOR, data, String(reads), out];
  return proc(label, argv, process.env, out, 'floor', false);
}

/**
 * The passes' shape for an output of `bytes` (the library's own sizes): how many times they read
 * the source, a pass's span (the output bytes its blocks are moved into), and an output chunk.
 */
export function passesOf(bytes) {
  const chunk = PASS_CHUNK_SCALE * DEFAULT_CHUNK_BYTES;
  const chunks = Math.ceil(bytes / chunk);
  const perPass = chunksPerPass(chunks, chunk);
  return {
    reads: Math.ceil(chunks / perPass),
    spanBytes: Math.min(perPass * chunk, bytes),
    chunkBytes: chunk,
  };
}

/**
 * User ns to move a 256-byte block to a random place in a span of each of `mibs` MiB, each window
 * giving a pass a `passes`-th of its blocks (bench/scatter-span.py, through `python`'s numpy, memory
 * touched first), with the pages a process gets unasked and with 2 MiB pages asked for: the least
 * of `runs` processes, the spans alternating, and the share of each span on 2 MiB pages.
 */
export function scatterCosts(python, mibs, passes, runs = 3) {
  const costs = {};
  for (const pages of ['unasked', 'huge']) {
    const least = mibs.map(() => ({ ns: Number.POSITIVE_INFINITY, huge: 0 }));
    for (let k = 0; k < runs; k++) {
      for (const [i, mib] of mibs.entries()) {
        const argv = [SCATTER_SPAN, String(mib), pages, String(passes)];
        const r = spawnSync(python, argv, { encoding: 'utf8' });
        if (r.status !== 0)
          throw new Error(`scatter-span.py ${argv.slice(1).join(' ')} failed: ${r.stderr}`);
        const [ns, huge] = r.stdout.trim().split(' ').map(Number);
        if (ns < least[i].ns) least[i] = { ns, huge };
      }
    }
    costs[pages] = least;
  }
  return costs;
}

/** The verdict line's words for an `ioFloor` row: against the peer, and the gather against it. */
export function ioFloorLine(floor, ours, peer) {
  const x = (v) => `${v.toFixed(2)}x`;
  return `the gather's I/O alone: ${floor.ms.toFixed(0)} ms, ${x(floor.ms / peer.ms)} numpy; the gather is ${x(ours.ms / floor.ms)} that floor`;
}

/** The tiny gather ([4,12] float32, 4 indices): start-up against `node -e 0` and numpy's. */
export function tinyProcs({ dir, python }) {
  const data = join(dir, 'tiny.npy');
  const indices = join(dir, 'tiny-indices.npy');
  const out = (k) => join(dir, `tiny-out-${k}.npy`);
  const gather = (k) => [process.execPath, CLI, 'gather', data, indices, '-o', out(k)];
  const procs = [
    nodeStart('node -e 0', 'node'),
    proc('tensorops gather (code cache warm)', gather(1), tensoropsEnv(dir), out(1), 'ours'),
    proc(
      'tensorops gather (no code cache)',
      gather(2),
      { ...tensoropsEnv(dir), TENSOROPS_CACHE_DIR: '' },
      out(2),
    ),
  ];
  if (python) procs.push(numpyProc(python, data, indices, out('np')));
  return procs;
}

/**
 * W8: W1's data and indices as .npy files, gathered file to file, from stdin and from a pipe; the
 * pipe's copy alone (`cat | cat > file`), the part of the pipe row a gather cannot avoid; and the
 * parts of any file-to-file gather in Node: node's start, and one read of the data with one write
 * of as many bytes to a new file (`cat data > file`).
 */
export function w8Procs({ dir, python }) {
  const data = join(dir, 'data.npy');
  const indices = join(dir, 'indices.npy');
  const out = (k) => join(dir, `out-${k}.npy`);
  const gather = (k, from = data) => [CLI, 'gather', from, indices, '--axis', '0', '-o', out(k)];
  const env = tensoropsEnv(dir);
  // A shell command over the data with no gather, for reference: its output is not compared.
  const reference = (label, script, k, role) =>
    proc(label, ['sh', '-c', script, out(k)], { ...env, DATA: data }, out(k), role, false);
  const procs = [
    proc('tensorops gather', [process.execPath, ...gather(1)], env, out(1), 'ours'),
    proc(
      'tensorops gather - < data.npy (stdin is the file)',
      ['sh', '-c', 'exec "$0" "$@" < "$DATA"', process.execPath, ...gather(2, '-')],
      { ...env, DATA: data },
      out(2),
      'stdin',
    ),
    proc(
      'cat data.npy | tensorops gather - (a pipe)',
      ['sh', '-c', 'cat "$DATA" | "$0" "$@"', process.execPath, ...gather(3, '-')],
      { ...env, DATA: data },
      out(3),
      'pipe',
    ),
    // What the pipe row adds to the file row, alone: a pipe copied into fresh page cache.
    reference(
      'cat data.npy | cat > copy.npy (the pipe copy alone, for reference)',
      'cat "$DATA" | cat > "$0"',
      'copy',
      'copy',
    ),
    nodeStart("node -e 0 (node's start, for reference)", 'start'),
    // W8's output is as large as its data: the bytes any gather reads and writes, with no gather.
    reference(
      'cat data.npy > copy.npy (the I/O alone, for reference)',
      'cat "$DATA" > "$0"',
      'io',
      'io',
    ),
    ioFloor(data, out('floor')),
    proc(
      `GLIBC_TUNABLES=${THP_TUNABLE} tensorops gather (set by the caller: no relaunch)`,
      [process.execPath, ...gather(4)],
      withThp(env),
      out(4),
    ),
    proc(
      'TENSOROPS_HUGE_PAGES=1 tensorops gather (asked for: starts again with the tunable)',
      [process.execPath, ...gather(5)],
      { ...env, TENSOROPS_HUGE_PAGES: '1' },
      out(5),
    ),
  ];
  if (python) procs.push(numpyProc(python, data, indices, out('np')));
  return procs;
}

/** numpy's text pipeline: ids by loadtxt, rows by take, CSV by savetxt (its default '%.18e'). */
export const NUMPY_TEXT_SCRIPT =
  'import sys, numpy as np; d, i, o = sys.argv[1:]; ' +
  "np.savetxt(o, np.take(np.load(d), np.loadtxt(i, dtype=np.int64), axis=0), delimiter=',')";

/**
 * W9: ids as text (one per line) gather rows of a float32 .npy into a CSV file, against numpy's
 * loadtxt + take + savetxt. The two CSVs print the same values differently, so their values are
 * compared (csvFloat32Digest), not their bytes.
 */
export function w9Procs({ dir, python }) {
  const data = join(dir, 'text-data.npy');
  const ids = join(dir, 'ids.txt');
  const out = (k) => join(dir, `text-out-${k}.csv`);
  const procs = [
    proc(
      'tensorops gather data.npy ids.txt -o out.csv',
      [process.execPath, CLI, 'gather', data, ids, '-o', out(1)],
      tensoropsEnv(dir),
      out(1),
      'ours',
      true,
      { digest: csvFloat32Digest },
    ),
  ];
  if (python) {
    procs.push(
      proc(
        `numpy loadtxt + take + savetxt (${python})`,
        [python, '-c', NUMPY_TEXT_SCRIPT, data, ids, out('np')],
        process.env,
        out('np'),
        'numpy',
        true,
        { digest: csvFloat32Digest },
      ),
    );
  }
  return procs;
}

/**
 * How each process of a table is started, by the milliseconds waited before it: `paused`, a second
 * after the one before it ended, as a user runs one command and reads its result; `back-to-back`,
 * at once. On this VM a process that allocates right after another freed memory meets faster page
 * faults than one that starts later (docs/performance.md, "The two memory regimes of this VM"), so
 * the protocol moves the figures of every process that allocates, numpy's most.
 */
export const PROTOCOLS = { paused: 1000, 'back-to-back': 0 };

/**
 * Where each process writes: `new`, a path where nothing is (the output of the round before is
 * deleted); `existing`, over the output of the round before, whose data is already on disk (it is
 * fsynced, outside the timing, like a file a user made earlier). tensorops replaces a file
 * atomically (a temp file, fsync, rename), numpy's np.save truncates it in place.
 */
export const OUTPUT_CASES = ['new', 'existing'];

/** After a process and its check: its output deleted, or kept and flushed for the next round. */
function settleOutput(path, output) {
  if (output === 'new') {
    rmSync(path, { force: true });
    return;
  }
  if (!existsSync(path)) return;
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs the processes in turn, round after round (a warm-up round first, so that every process
 * reads its inputs from the page cache and tensorops' code cache is written), and reports the
 * median wall time and peak RSS of each. Every output is checked and deleted as soon as its
 * process ends, outside the timing: each round's output must match the reference's (numpy's, or
 * else the first process's) in that round, a process's own `check` must pass in the warm-up
 * round (else this throws), and no process runs beside the unwritten page cache
 * of the outputs before it (8 W8 outputs are 2 GB, about the kernel's threshold for writing
 * dirty pages back in the background). The load of the machine is taken alongside: the load
 * average and a warm memcpy of 256 MiB in this process, before and after.
 */
export async function wholeProcess(procs, { runs, protocol = 'back-to-back', output = 'new' }) {
  const pauseMs = PROTOCOLS[protocol];
  if (pauseMs === undefined || !OUTPUT_CASES.includes(output)) {
    throw new Error(`unknown protocol ${protocol} or output case ${output}`);
  }
  const memcpy = () => (256 * 2 ** 20) / 1e6 / timeMemcpy(256 * 2 ** 20, { runs: 5, warmup: 1 }).ms;
  const before = { load: loadavg()[0], memcpyGBps: memcpy() };
  const samples = procs.map(() => []);
  const reference = procs.find((p) => p.role === 'numpy') ?? procs.find((p) => p.out && p.verify);
  const verified = procs.map(() => true);
  for (let i = 0; i <= runs; i++) {
    const digests = new Map();
    for (const [k, p] of procs.entries()) {
      if (pauseMs > 0) await sleep(pauseMs);
      const m = await measure(p.argv, p.env, p.status);
      if (i > 0) samples[k].push({ ms: m.ms, rssMB: m.rssMB, userS: m.userS });
      const problem = i === 0 ? p.check?.(m) : null;
      if (problem) throw new Error(`${p.label}: ${problem}`);
      if (p.out && p.verify) digests.set(p, p.digest(p.out));
      if (p.out) settleOutput(p.out, output);
    }
    for (const [k, p] of procs.entries()) {
      if (digests.has(p) && digests.get(p) !== digests.get(reference)) verified[k] = false;
    }
  }
  for (const p of procs) if (p.out) rmSync(p.out, { force: true });
  const after = { load: loadavg()[0], memcpyGBps: memcpy() };
  const rows = procs.map((p, k) => {
    const users = samples[k][0]?.userS === undefined ? undefined : samples[k].map((x) => x.userS);
    return {
      label: p.label,
      role: p.role,
      ms: median(samples[k].map((x) => x.ms)),
      all: samples[k].map((x) => Math.round(x.ms)),
      rssMB: median(samples[k].map((x) => x.rssMB)),
      userS: users && median(users),
      // The least user time of the rounds: the one the machine added least to (see largeVerdicts).
      userLeastS: users && Math.min(...users),
      verified: verified[k],
    };
  });
  return {
    rows,
    runs,
    protocol,
    output,
    load: { before, after },
    verified: verified.every(Boolean),
  };
}

/** safetensors' own reader, as a user lists a file: every key with its shape and dtype, and the metadata. */
export const SAFE_OPEN_SCRIPT =
  'import sys; from safetensors import safe_open; f = safe_open(sys.argv[1], "np"); ' +
  'r = [(k, f.get_slice(k).get_shape(), f.get_slice(k).get_dtype()) for k in f.keys()]; ' +
  'm = f.metadata()';

/** The same listing printed as JSON, run once outside the timing to check tensorops' table. */
const SAFE_OPEN_LISTING =
  'import sys, json; from safetensors import safe_open; f = safe_open(sys.argv[1], "np"); ' +
  'print(json.dumps([[k, f.get_slice(k).get_shape(), f.get_slice(k).get_dtype()] for k in f.keys()]))';

const HEADER_DTYPES = ['float32', 'float16', 'bfloat16', 'int64'];

/**
 * A .safetensors of `count` small tensors (names like a mixture-of-experts checkpoint's, shapes
 * [1..4, 3], four dtypes), the header being nearly all of the file.
 */
export function writeHeadersFile(path, count) {
  const bytes = { float32: 4, float16: 2, bfloat16: 2, int64: 8 };
  const tensors = Array.from({ length: count }, (_, i) => {
    const dtype = HEADER_DTYPES[i % 4];
    const shape = [1 + (i % 4), 3];
    return {
      name: `model.layers.${i >> 6}.mlp.experts.${i & 63}.down_proj.weight`,
      tensor: { dtype, shape, data: new Uint8Array(shape[0] * 3 * bytes[dtype]) },
    };
  });
  writeFileSync(path, encodeSafetensors(tensors, { format: 'pt' }));
}

/**
 * What is wrong with inspect's table against safe_open's listing (`[name, shape, dtype]` in any
 * order), or null: one row per tensor, each with safe_open's shape and dtype.
 */
function tableProblem(stdout, listing) {
  const rows = new Map();
  for (const line of stdout.split('\n').slice(2)) {
    const cells = line.trim().split(/ {2,}/);
    if (cells.length === 6) rows.set(cells[0], `${cells[2]} ${cells[5]}`);
  }
  if (rows.size !== listing.length) return `${rows.size} rows for ${listing.length} tensors`;
  for (const [name, shape, dtype] of listing) {
    const want = `[${shape.join(', ')}] ${dtype}`;
    if (rows.get(name) !== want) return `${name}: ${rows.get(name)}, safe_open says ${want}`;
  }
  return null;
}

/**
 * headers: `tensorops inspect FILE` (the plain table, into a pipe) against safe_open listing every
 * key's shape and dtype and the metadata, on the file of writeHeadersFile. `python` is null when
 * safetensors is not importable: tensorops' row alone, unchecked against a listing.
 */
export function headersProcs({ dir, python }) {
  const file = join(dir, 'headers.safetensors');
  let check;
  if (python) {
    const r = spawnSync(python, ['-c', SAFE_OPEN_LISTING, file], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    if (r.status !== 0) throw new Error(`safe_open listing failed: ${r.stderr.trim()}`);
    const listing = JSON.parse(r.stdout);
    check = ({ stdout }) => tableProblem(stdout, listing);
  }
  const procs = [
    proc(
      'tensorops inspect headers.safetensors',
      [process.execPath, CLI, 'inspect', file],
      tensoropsEnv(dir),
      null,
      'ours',
      false,
      check ? { check } : {},
    ),
  ];
  if (python) {
    procs.push(
      proc(
        `safe_open: keys, shapes, dtypes, metadata (${python})`,
        [python, '-c', SAFE_OPEN_SCRIPT, file],
        process.env,
        null,
        'numpy',
      ),
    );
  }
  return procs;
}
