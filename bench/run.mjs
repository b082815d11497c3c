// `pnpm bench` (= turbo run build && node bench/run.mjs): first whole processes as a user runs
// them (a tiny gather against `node -e 0` and the numpy one-liner; W8, file to file, from stdin and
// from a pipe; W9, ids as text to rows as CSV, against numpy's loadtxt + take + savetxt; headers,
// inspect of 10^5 tensors against safetensors' safe_open), each table under both protocols (a
// pause before every process, or back to back) and both output cases (a new path, an existing
// output), then
// tensorops' kernels in-process next to a warm memcpy of the same output size, numpy and
// onnxruntime-node; last, `linear`: whole processes on inputs 10x apart, to show that indices,
// text and headers are parsed in time linear in their size; `gguf`: token rows of quantized GGUF
// embeddings against gguf-py. See docs/performance.md.
//
//   node bench/run.mjs [tiny W1 W2 ... W9 headers sizes ooc elements linear gguf] [--quick] [--runs N]
//                      [--warmup N] [--thp] [--rows N,...] [--protocol paused|back-to-back]
//                      [--output new|existing] [--no-numpy] [--no-ort] [--no-install] [--json FILE]
//
// sizes, ooc and elements (bench/lib/large.mjs) are whole processes on large inputs: W8's shape
// at 1e5 to 1.6e7 rows (--rows picks some), rows of a 1 GiB file, gather-elements.
//
// Every peer's output is compared with tensorops' (sha256 of the bytes, and the shape) before
// its time is reported; a mismatch is printed in place of the figure and makes the exit code 1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  randomBits,
  randomFloat32,
  randomInt64,
  sha256,
  writeNpy,
  writeText,
} from './lib/data.mjs';
import { ggufBench } from './lib/gguf.mjs';
import { benchIndexText } from './lib/index-text.mjs';
import { largeBench, largeVerdicts } from './lib/large.mjs';
import { linearBench } from './lib/linear.mjs';
import { probeNumpy, runNumpy } from './lib/numpy.mjs';
import { loadOrt, ORT_VERSION, ortSession } from './lib/ort.mjs';
import { gbps, gc, timeMemcpy, timeRuns, timeRunsAsync } from './lib/timing.mjs';
import { verdict } from './lib/verdict.mjs';
import {
  headersProcs,
  ioFloorLine,
  OUTPUT_CASES,
  PROTOCOLS,
  THP_TUNABLE,
  tinyProcs,
  w8Procs,
  w9Procs,
  wholeProcess,
  withThp,
  writeHeadersFile,
} from './lib/whole-process.mjs';
import { WORKLOADS } from './lib/workloads.mjs';

const USAGE =
  'usage: node bench/run.mjs [tiny W1..W9 headers sizes ooc elements linear gguf ...] [--quick] [--runs N] [--warmup N] [--thp] [--rows N,...] [--protocol paused|back-to-back] [--output new|existing] [--no-numpy] [--no-ort] [--no-install] [--json FILE]';

function parseArgs(argv) {
  const o = {
    ids: [],
    quick: false,
    thp: false,
    numpy: true,
    ort: true,
    install: true,
    json: null,
    protocols: [],
    outputs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${a} needs a positive integer`);
      return v;
    };
    if (/^W[1-9]$/i.test(a)) o.ids.push(a.toUpperCase());
    else if (['tiny', 'linear', 'headers', 'sizes', 'ooc', 'elements', 'gguf'].includes(a))
      o.ids.push(a);
    else if (a === '--rows') o.rows = argv[++i].split(',').map(Number);
    else if (a === '--protocol' && argv[i + 1] in PROTOCOLS) o.protocols.push(argv[++i]);
    else if (a === '--output' && OUTPUT_CASES.includes(argv[i + 1])) o.outputs.push(argv[++i]);
    else if (a === '--quick') o.quick = true;
    else if (a === '--thp') o.thp = true;
    else if (a === '--runs') o.runs = num();
    else if (a === '--warmup') o.warmup = num();
    else if (a === '--no-numpy') o.numpy = false;
    else if (a === '--no-ort') o.ort = false;
    else if (a === '--no-install') o.install = false;
    else if (a === '--json') o.json = argv[++i];
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  if (o.ids.length === 0)
    o.ids = [
      'tiny',
      'W8',
      'W9',
      'headers',
      'sizes',
      'ooc',
      'elements',
      'gguf',
      'W1',
      'W2',
      'W3',
      'W4',
      'W5',
      'W6',
      'W7',
      'linear',
    ];
  // Both protocols and both output cases unless one is asked for.
  if (o.protocols.length === 0) o.protocols = Object.keys(PROTOCOLS);
  if (o.outputs.length === 0) o.outputs = [...OUTPUT_CASES];
  o.runs ??= o.quick ? 3 : 7;
  o.warmup ??= o.quick ? 1 : 2;
  return o;
}

/** The built packages; a missing dist or export leaves a hole, reported as "n/a (not built)". */
async function loadApi() {
  const api = {};
  for (const [key, path] of [
    ['core', '../packages/core/dist/index.js'],
    ['gatherTree', '../packages/gather-tree/dist/index.js'],
  ]) {
    try {
      api[key] = await import(path);
    } catch {
      api[key] = null;
    }
  }
  return api;
}

// biome-ignore lint/suspicious/noUndeclaredEnvVars: bench scripts run outside turbo's tasks
const thpActive = () => (process.env.GLIBC_TUNABLES ?? '').includes(THP_TUNABLE);

function machine(numpyVersion, ortVersion) {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '?';
  let thp = '?';
  try {
    thp = /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))[1];
  } catch {}
  return {
    cpu,
    cores: availableParallelism(),
    node: process.version,
    numpy: numpyVersion ?? 'absent',
    onnxruntime: ortVersion ?? 'absent',
    thp,
    nodeMallocHugePages: thpActive(),
  };
}

const fmt = (x, d = 2) => (x === undefined || x === null || Number.isNaN(x) ? '' : x.toFixed(d));

/** Each median covers at least this much calling time, so that short calls (W7's few ms) are not at the mercy of one busy moment of a shared machine. */
const MIN_TIMED_MS = 300;
const MAX_RUNS = 101;

/**
 * Timed runs for a workload: at least --runs, more (up to MAX_RUNS, odd) when one call is short,
 * judged by a second untimed call. Every peer gets the same number.
 */
function runsFor(kernel, x, opts) {
  const t0 = performance.now();
  kernel(x);
  const ms = performance.now() - t0;
  const runs = Math.max(opts.runs, Math.min(MAX_RUNS, Math.ceil(MIN_TIMED_MS / ms)));
  return runs | 1;
}

/**
 * One kernel workload in two modes: "fresh" (each call allocates its output: gather(),
 * np.take(...), session.run) and "out" (each call writes a warm preallocated output:
 * gather(..., { out }), np.take(..., out=), session.run with a preallocated output tensor).
 * Ratios compare like with like.
 */
async function runKernel(w, opts, ctx) {
  const size = w.sizes[opts.quick ? 'quick' : 'full'];
  const row = { id: w.id, title: w.title(size), notes: [], fresh: {}, out: {} };
  const kernel = w.kernel(ctx.api);
  if (!kernel) {
    row.na = 'n/a (not built)';
    return row;
  }
  const x = w.make(size);
  const first = kernel(x);
  const outBytes = first.data.byteLength;
  const digest = sha256(first.data);
  const shape = first.shape.join();
  row.outMB = outBytes / 2 ** 20;
  const t = { runs: runsFor(kernel, x, opts), warmup: opts.warmup };
  row.runs = t.runs;
  const mismatch = (who) => {
    row.notes.push(`${who}: OUTPUT DIFFERS from tensorops gather(); figure dropped`);
    ctx.failed = true;
  };
  gc();
  row.fresh.ours = timeRuns(() => kernel(x), t).ms;
  row.memcpy = timeMemcpy(outBytes, t).ms;

  const into = w.into(ctx.api);
  if (into) {
    const dst = new Uint8Array(outBytes);
    into(x, dst, first.shape);
    if (sha256(dst) !== digest) mismatch('tensorops into a preallocated output');
    else row.out.ours = timeRuns(() => into(x, dst, first.shape), t).ms;
  }

  const best = (mode, peer, name, ms) => {
    const m = row[mode];
    if (m[peer] === undefined || ms < m[peer]) {
      m[peer] = ms;
      m[`${peer}Variant`] = name;
    }
  };

  if (ctx.numpy.version) {
    const tensors = Object.entries(x).filter(([, v]) => v?.data instanceof Uint8Array);
    for (const [name, tensor] of tensors) writeNpy(join(ctx.dir, `${name}.npy`), tensor);
    const r = runNumpy({ ...w.numpy, dir: ctx.dir, runs: t.runs, warmup: opts.warmup });
    for (const [name] of tensors) rmSync(join(ctx.dir, `${name}.npy`), { force: true });
    if (r.error) row.notes.push(r.error);
    for (const v of r.variants ?? []) {
      if (v.sha256 !== digest || v.shape.join() !== shape) {
        mismatch(`numpy ${v.name}`);
        continue;
      }
      row.notes.push(`numpy ${v.name}: ${fmt(v.ms, 1)} ms`);
      best(v.mode, 'numpy', v.name, v.ms);
    }
  }

  if (ctx.ort.ort && w.ort) {
    const spec = w.ort(x);
    try {
      const s = await ortSession(ctx.ort.ort, {
        op: spec.op,
        attrs: spec.attrs,
        inputs: spec.inputs ?? { data: x.data, indices: x.indices },
        outShape: first.shape,
        outDtype: first.dtype,
      });
      if (spec.note) row.notes.push(`onnxruntime: ${spec.note}`);
      const dst = new Uint8Array(outBytes);
      const variants = [
        ['fresh', 'session.run', () => s.run()],
        ['out', 'session.run into a preallocated output', () => s.runInto(dst)],
      ];
      for (const [mode, name, fn] of variants) {
        if (sha256(await fn()) !== digest) {
          mismatch(`onnxruntime ${name}`);
          continue;
        }
        const ms = (await timeRunsAsync(fn, t)).ms;
        row.notes.push(`onnxruntime ${name}: ${fmt(ms, 1)} ms`);
        best(mode, 'ort', name, ms);
      }
      await s.release();
    } catch (e) {
      row.notes.push(`onnxruntime failed: ${String(e.message).split('\n')[0]}`);
    }
  }
  return row;
}

function printTable(head, body) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells) =>
    `| ${head.map((_, i) => (i === 0 ? (cells[i] ?? '').padEnd(widths[i]) : (cells[i] ?? '').padStart(widths[i]))).join(' | ')} |`;
  console.log(line(head));
  console.log(
    `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
  );
  for (const r of body) console.log(line(r));
}

function printKernelTable(rows) {
  const head = [
    'workload',
    'output',
    'MB',
    'ours ms',
    'ours GB/s',
    'memcpy GB/s',
    'ours/memcpy',
    'numpy ms',
    'vs numpy',
    'ort ms',
    'vs ort',
  ];
  const body = [];
  for (const r of rows) {
    if (r.na) {
      body.push([r.id, r.na]);
      continue;
    }
    const bytes = r.outMB * 2 ** 20;
    const memcpyGbps = gbps(bytes, r.memcpy);
    for (const mode of ['fresh', 'out']) {
      const m = r[mode];
      if (m.ours === undefined) continue;
      const g = gbps(bytes, m.ours);
      body.push([
        r.id,
        mode === 'fresh' ? 'fresh' : 'prealloc',
        fmt(r.outMB, 0),
        fmt(m.ours, 1),
        fmt(g),
        fmt(memcpyGbps),
        fmt(g / memcpyGbps),
        fmt(m.numpy, 1),
        m.numpy ? `${fmt(m.numpy / m.ours)}x` : '',
        fmt(m.ort, 1),
        m.ort ? `${fmt(m.ort / m.ours)}x` : '',
      ]);
    }
  }
  printTable(head, body);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.thp && !thpActive()) {
    // glibc reads its tunables at start-up only: run this script again with the tunable set.
    const env = withThp(process.env);
    const script = fileURLToPath(import.meta.url);
    const r = spawnSync(process.execPath, [script, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env,
    });
    process.exitCode = r.status ?? 1;
    return;
  }
  const api = await loadApi();
  const numpy = opts.numpy ? probeNumpy() : { skip: 'disabled (--no-numpy)' };
  const kernelIds = opts.ids.filter((id) => /^W[1-7]$/.test(id));
  const ort = !opts.ort
    ? { skip: 'disabled (--no-ort)' }
    : kernelIds.length
      ? loadOrt({ install: opts.install })
      : { skip: 'not needed' };
  const env = machine(
    numpy.version,
    ort.ort ? ORT_VERSION : kernelIds.length ? 'absent' : 'not used',
  );
  console.log(
    `tensorops bench${opts.quick ? ' --quick' : ''}: ${env.cpu}, ${env.cores} cores, node ${env.node}, numpy ${env.numpy}, onnxruntime-node ${env.onnxruntime} (1 thread); kernel THP ${env.thp}, node malloc huge pages ${env.nodeMallocHugePages ? `on (GLIBC_TUNABLES=${THP_TUNABLE})` : 'off'}; median of ${opts.runs} runs or more (short calls: enough runs to fill ${MIN_TIMED_MS} ms, up to ${MAX_RUNS}) after ${opts.warmup} warm-up`,
  );
  if (numpy.skip) console.log(`numpy peer skipped: ${numpy.skip}`);
  if (ort.skip && kernelIds.length) console.log(`onnxruntime peer skipped: ${ort.skip}`);

  const dir = mkdtempSync(join(tmpdir(), 'tensorops-bench-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const ctx = { api, numpy, ort, dir, failed: false };
  const rows = [];
  const whole = [];
  try {
    for (const id of ['tiny', 'W8', 'W9', 'headers', 'gguf'].filter((x) => opts.ids.includes(x))) {
      try {
        for await (const r of runWholeProcess(id, opts, ctx)) {
          if (!r.verified) ctx.failed = true;
          whole.push(r);
          printWhole(r);
        }
      } catch (e) {
        // e.g. apps/cli/dist not built: the kernel table is still worth printing
        whole.push({ id, error: String(e.message).split('\n')[0] });
        console.log(`\n${id} failed: ${whole.at(-1).error}`);
        ctx.failed = true;
      }
    }
    try {
      const python = ctx.numpy.version ? ctx.numpy.executable : null;
      // User time grows from one size to the next within a protocol.
      const previous = new Map();
      for (const r of await largeBench(opts, dir, python)) {
        if (!r.verified) ctx.failed = true;
        r.verdicts = largeVerdicts(r, previous.get(r.protocol), python);
        previous.set(r.protocol, r);
        whole.push(r);
        printWhole(r);
      }
    } catch (e) {
      console.log(`\nlarge inputs failed: ${String(e.message).split('\n')[0]}`);
      ctx.failed = true;
    }
    for (const id of kernelIds) {
      const w = WORKLOADS.find((x) => x.id === id);
      process.stderr.write(`bench: ${w.id} ${w.title(w.sizes[opts.quick ? 'quick' : 'full'])}\n`);
      rows.push(await runKernel(w, opts, ctx));
      gc();
    }
  } finally {
    cleanup();
  }

  console.log('');
  if (rows.length) {
    printKernelTable(rows);
    console.log(
      '\nfresh: every call allocates its output (gather(), np.take(...), session.run); prealloc: every call writes a warm preallocated output (gather(..., { out }), np.take(..., out=), session.run with an output tensor). ms: median of the whole call, index checks included. GB/s: output bytes / ms. vs X: X ms / ours ms (> 1: tensorops is faster); X = the fastest verified variant of that mode.',
    );
    for (const r of rows) {
      const best = [
        r.fresh.numpyVariant && `numpy: ${r.fresh.numpyVariant}`,
        r.out.numpyVariant && `numpy prealloc: ${r.out.numpyVariant}`,
      ].filter(Boolean);
      const runs = r.runs ? `; ${r.runs} runs` : '';
      console.log(`${r.id} ${r.title}${best.length ? ` (best ${best.join('; ')}${runs})` : ''}`);
      for (const n of r.notes) console.log(`    ${n}`);
    }
  }
  if (kernelIds.includes('W1')) benchIndexText(opts);
  if (opts.ids.includes('W8')) await (await import('./lib/remote.mjs')).remoteBench(opts);
  let linear = [];
  if (opts.ids.includes('linear')) {
    const dir = mkdtempSync(join(tmpdir(), 'tensorops-bench-linear-'));
    try {
      linear = await linearBench(opts, dir);
    } catch (e) {
      // An output or message that is not the right one: the figures would mean nothing.
      console.log(`\nlinear failed: ${String(e.message).split('\n')[0]}`);
      ctx.failed = true;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (opts.json) {
    writeFileSync(opts.json, `${JSON.stringify({ env, opts, whole, rows, linear }, null, 2)}\n`);
  }
  if (ctx.failed) {
    console.log(
      '\nFAILED: a peer produced different output (its figures are dropped) or a whole-process run failed.',
    );
    process.exitCode = 1;
  }
}

/**
 * The whole-process workloads. tiny: [4,12] float32 and 4 int64 indices; W8: W1's data and
 * indices; W9: float32 [n,4] and n ids as text; headers: a .safetensors of 10^5 small tensors.
 * Their files are written once, then each table (a protocol and an output case) runs every
 * process in turn, round after round.
 */
async function* runWholeProcess(id, opts, ctx) {
  const python = ctx.numpy.version ? ctx.numpy.executable : null;
  if (id === 'gguf') {
    yield* await ggufBench(opts, ctx, python);
    return;
  }
  const w = prepareWholeProcess(id, opts, ctx, python);
  // headers writes no file: its output case is stdout, whatever --output says.
  const outputs = w.writes === false ? ['new'] : opts.outputs;
  for (const protocol of opts.protocols) {
    for (const output of outputs) {
      const r = await wholeProcess(w.procs, { runs: w.runs, protocol, output });
      yield { id, title: w.title, ...(w.more ?? {}), ...r };
    }
  }
}

/** A workload's input files, written once, and its processes. */
function prepareWholeProcess(id, opts, ctx, python) {
  if (id === 'W9') return prepareTextPipeline(opts, ctx, python);
  if (id === 'headers') {
    const count = opts.quick ? 10_000 : 100_000;
    const title = `headers: inspect a .safetensors of ${count} tensors, to a pipe`;
    process.stderr.write(`bench: ${title}\n`);
    writeHeadersFile(join(ctx.dir, 'headers.safetensors'), count);
    const peer = python && safetensorsImportable(python) ? python : null;
    const procs = headersProcs({ dir: ctx.dir, python: peer });
    return { procs, runs: opts.quick ? 2 : 7, title, writes: false, more: { peer: 'safe_open' } };
  }
  if (id === 'tiny') {
    process.stderr.write('bench: tiny gather, whole process\n');
    writeNpy(join(ctx.dir, 'tiny.npy'), randomBits('float32', [4, 12], 5));
    writeNpy(join(ctx.dir, 'tiny-indices.npy'), randomInt64([4], 4, 6));
    const runs = opts.quick ? 3 : 21;
    const title = 'tiny gather: f32 [4,12], i64 [4], axis 0, to a file';
    return { procs: tinyProcs({ dir: ctx.dir, python }), runs, title };
  }
  const w1 = WORKLOADS.find((x) => x.id === 'W1');
  const size = w1.sizes[opts.quick ? 'quick' : 'full'];
  process.stderr.write(`bench: W8 file to file, ${w1.title(size)}\n`);
  let x = w1.make(size);
  writeNpy(join(ctx.dir, 'data.npy'), x.data);
  writeNpy(join(ctx.dir, 'indices.npy'), x.indices);
  x = undefined;
  gc();
  // 11 rounds: with 5, the medians' ratios moved by a third between back-to-back runs here.
  const runs = opts.quick ? 2 : 11;
  const dataBytes = statSync(join(ctx.dir, 'data.npy')).size;
  return {
    procs: w8Procs({ dir: ctx.dir, python }),
    runs,
    title: `W8 file to file: ${w1.title(size)} as .npy files`,
    more: { dataBytes },
  };
}

/** Whether `python` imports safetensors, the headers row's peer. */
function safetensorsImportable(python) {
  return spawnSync(python, ['-c', 'import safetensors'], { stdio: 'ignore' }).status === 0;
}

/** W9: 10^6 ids as text (one per line) gather rows of a float32 [10^6, 4] .npy into a CSV file. */
function prepareTextPipeline(opts, ctx, python) {
  const n = opts.quick ? 50_000 : 1_000_000;
  const title = `W9 text pipeline: ${n} ids as text -> rows of f32 [${n},4] -> CSV`;
  process.stderr.write(`bench: ${title}\n`);
  writeNpy(join(ctx.dir, 'text-data.npy'), randomFloat32([n, 4], -4, 4, 7));
  const ids = randomInt64([n], n, 8);
  const view = new BigInt64Array(ids.data.buffer, ids.data.byteOffset, n);
  writeText(join(ctx.dir, 'ids.txt'), `${Array.from(view, String).join('\n')}\n`);
  return { procs: w9Procs({ dir: ctx.dir, python }), runs: opts.quick ? 2 : 7, title };
}

const ratio = (a, b) => (a && b ? `${fmt(a / b)}x` : '');

/** One whole-process table, then its targets judged on this run's figures. */
function printWhole(r) {
  const numpy = r.rows.find((p) => p.role === 'numpy');
  const node = r.rows.find((p) => p.role === 'node');
  const ours = r.rows.find((p) => p.role === 'ours');
  const { before, after } = r.load;
  const peer = r.peer ?? 'numpy';
  const started =
    r.protocol === 'paused'
      ? `each process ${PROTOCOLS.paused / 1000} s after the one before`
      : 'back to back';
  const output =
    r.id === 'headers'
      ? ''
      : `, output to ${r.output === 'new' ? 'a new path' : 'an existing file'}`;
  console.log(
    `\n${r.title}; ${started}${output}; whole processes, median of ${r.runs} alternating rounds after 1 warm-up (page cache and code cache warm); load average ${fmt(before.load, 1)} -> ${fmt(after.load, 1)}, memcpy ${fmt(before.memcpyGBps, 1)} -> ${fmt(after.memcpyGBps, 1)} GB/s`,
  );
  // The spread of each row's rounds, so that a reader can tell a ratio from the machine's noise.
  const head = [
    'process',
    'wall ms',
    'rounds min-max',
    'peak RSS MB',
    `wall / ${peer}`,
    `RSS / ${peer}`,
    'user s (least)',
  ];
  if (node) head.push('wall / node -e 0');
  const body = r.rows.map((p) => {
    const cells = [
      p.label,
      p.verified ? fmt(p.ms, 0) : 'OUTPUT DIFFERS',
      `${Math.min(...p.all)}-${Math.max(...p.all)}`,
      fmt(p.rssMB, 0),
      p === numpy ? '' : ratio(p.ms, numpy?.ms),
      p === numpy ? '' : ratio(p.rssMB, numpy?.rssMB),
      p.userS === undefined ? '' : `${fmt(p.userS)} (${fmt(p.userLeastS)})`,
    ];
    if (node) cells.push(p === node ? '' : ratio(p.ms, node.ms));
    return cells;
  });
  printTable(head, body);
  const checks = [];
  if (r.verdicts) checks.push(...r.verdicts);
  else if (r.id === 'tiny') {
    // Node 22 and later start more slowly than Node 20 (`node -e 0` included): a wider bound there.
    const bound = Number(process.versions.node.split('.')[0]) >= 22 ? 1.5 : 1.35;
    checks.push(verdict('tiny vs node -e 0', node && ours && ours.ms / node.ms, bound));
    checks.push(verdict('tiny vs numpy', numpy && ours && ours.ms / numpy.ms, 0.9));
  } else if (r.id === 'headers') {
    checks.push(verdict('headers wall vs safe_open', numpy && ours && ours.ms / numpy.ms, 1.0));
    checks.push(
      verdict('headers peak RSS vs safe_open', numpy && ours && ours.rssMB / numpy.rssMB, 1.5),
    );
  } else if (r.id === 'W9') {
    checks.push(verdict('W9 wall vs numpy', numpy && ours && ours.ms / numpy.ms, 0.5));
  } else if (r.id === 'gguf') {
    checks.push(
      verdict(`gguf ${r.type} wall vs gguf-py`, numpy && ours && ours.ms / numpy.ms, 0.5),
    );
  } else {
    const stdin = r.rows.find((p) => p.role === 'stdin');
    const pipe = r.rows.find((p) => p.role === 'pipe');
    checks.push(verdict('W8 wall vs numpy', numpy && ours && ours.ms / numpy.ms, 0.8));
    checks.push(verdict('W8 peak RSS vs numpy', numpy && ours && ours.rssMB / numpy.rssMB, 0.7));
    checks.push(verdict('W8 stdin vs file', stdin && ours && stdin.ms / ours.ms, 1.5));
    checks.push(verdict('W8 pipe vs file', pipe && ours && pipe.ms / ours.ms, 1.5));
    // Data on stdin is streamed or spilled, never held twice: peak RSS at most the data + 64 MiB.
    const rssLimitMB = r.dataBytes / 2 ** 20 + 64;
    for (const p of [stdin, pipe].filter(Boolean)) {
      checks.push(
        `W8 ${p.role} peak RSS: ${fmt(p.rssMB, 0)} MB (target <= the data + 64 MiB = ${fmt(rssLimitMB, 0)} MB) ${p.rssMB <= rssLimitMB ? 'met' : 'MISSED'}`,
      );
    }
    const copy = r.rows.find((p) => p.role === 'copy');
    if (pipe && ours && copy) {
      checks.push(
        `W8 pipe row minus file row: ${fmt(pipe.ms - ours.ms, 0)} ms; the pipe copy alone: ${fmt(copy.ms, 0)} ms`,
      );
    }
    // Node's start plus the bytes' I/O, done one after the other: what the file row cannot go below
    // without overlapping them, set against the time the numpy target allows.
    const start = r.rows.find((p) => p.role === 'start');
    const io = r.rows.find((p) => p.role === 'io');
    if (start && io && numpy) {
      const floor = start.ms + io.ms;
      checks.push(
        `W8 node's start + the I/O alone: ${fmt(start.ms, 0)} + ${fmt(io.ms, 0)} = ${fmt(floor, 0)} ms, ${fmt(floor / numpy.ms)}x numpy (the target allows ${fmt(0.8 * numpy.ms, 0)} ms)`,
      );
    }
    // The I/O the gather's strategy needs, overlapped as it does it: the floor of that strategy.
    const strategyIo = r.rows.find((p) => p.role === 'floor');
    if (strategyIo && ours && numpy) checks.push(`W8 ${ioFloorLine(strategyIo, ours, numpy)}`);
  }
  console.log(checks.map((c) => `- ${c}`).join('\n'));
}

try {
  await main();
} catch (e) {
  console.error(`bench: ${e.stack}`);
  process.exitCode = 2;
}
