// Whole processes on large inputs, each against its peer run the same way (the interpreter's real
// path, inputs in the page cache, outputs checked and deleted between processes):
// - sizes: W8's shape (float32 [N, 64], N int64 ids, axis 0, .npy to .npy) at N = 1e5, 1e6, 4e6
//   and 1.6e7 against the numpy one-liner: wall time at most 1.0x numpy's and peak RSS at most
//   0.5x at each size, and user time linear in N (4x the rows, at most 4.4x the user time). The
//   gather's strategy (scan, then passes) changes between the first two sizes; each table also
//   runs the I/O of that strategy alone (bench/io-floor.mjs), its floor, and prints the spread of
//   the rounds' own ratios beside the wall verdict.
// - ooc: 200k random rows of a 1 GiB .npy (float32 [262144, 1024]: 4 KiB rows, 781 MiB out)
//   against numpy reading it with mmap_mode='r': at most 1.0x, with the file in the page cache.
// - elements: gather-elements of float32 [4096, 4096] along axis 1 (int64 indices of the same
//   shape) against np.take_along_axis and onnxruntime's GatherElements (Python, one thread),
//   each loading the .npy files and saving the output: at most 1.0x each.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { idsBelow, writeRandomNpy } from './data.mjs';
import { oneNodeModel } from './onnx-model.mjs';
import { median } from './timing.mjs';
import { verdict } from './verdict.mjs';
import {
  CLI,
  ioFloor,
  ioFloorLine,
  NUMPY_SCRIPT,
  nodeStart,
  passesOf,
  proc,
  scatterCosts,
  tensoropsEnv,
  wholeProcess,
} from './whole-process.mjs';

/** Bytes of a row of W8's shape: 64 float32. */
const W8_ROW_BYTES = 256;

/**
 * Rows of W8's table at each size, and the rounds each size runs: more where a round is short and
 * the wall ratio sits near its bound, so that its median moves less with the machine's state
 * (numpy's largest takes ~10 s).
 */
const SIZES = {
  full: [
    { rows: 100_000, rounds: 21 },
    { rows: 1_000_000, rounds: 15 },
    { rows: 4_000_000, rounds: 5 },
    { rows: 16_000_000, rounds: 3 },
  ],
  quick: [
    { rows: 10_000, rounds: 2 },
    { rows: 40_000, rounds: 2 },
  ],
};

/** 4x the rows may take at most this much more user time. */
export const USER_GROWTH_BOUND = 4.4;

const numpyMmapScript =
  'import sys, numpy as np; d, i, o = sys.argv[1:]; ' +
  "np.save(o, np.take(np.load(d, mmap_mode='r'), np.load(i), axis=0))";
const takeAlongScript =
  'import sys, numpy as np; d, i, o = sys.argv[1:]; ' +
  'np.save(o, np.take_along_axis(np.load(d), np.load(i), axis=1))';
const ortScript =
  'import sys, numpy as np, onnxruntime as ort; m, d, i, o = sys.argv[1:]; ' +
  'so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1; ' +
  "s = ort.InferenceSession(m, so, providers=['CPUExecutionProvider']); " +
  "np.save(o, s.run(None, {'data': np.load(d), 'indices': np.load(i)})[0])";

/** Whether `python` imports onnxruntime. */
function hasOrt(python) {
  return spawnSync(python, ['-c', 'import onnxruntime'], { stdio: 'ignore' }).status === 0;
}

/**
 * One table per protocol (`opts.protocols`, output to a new path): the tensorops `command` along
 * `axis`, `node -e 0` (node's start and its memory, the floor of any tensorops process) and the
 * peers (`argv` after the interpreter, each given its output path last), `runs` rounds.
 */
async function runTables(
  opts,
  { dir, python, data, indices, command, axis, peers, runs, variants = [], floor = false },
) {
  const out = (k) => join(dir, `large-out-${k}.npy`);
  const argv = [process.execPath, CLI, command, data, indices, '--axis', String(axis)];
  const ours = [...argv, '-o', out('ours')];
  const procs = [
    proc(`tensorops ${command}`, ours, tensoropsEnv(dir), out('ours'), 'ours'),
    ...variants.map(({ label, env }, k) =>
      proc(label, [...argv, '-o', out(`v${k}`)], { ...tensoropsEnv(dir), ...env }, out(`v${k}`)),
    ),
    nodeStart("node -e 0 (node's start, for reference)", 'start'),
    ...(floor ? [ioFloor(data, out('floor'))] : []),
  ];
  if (python) {
    for (const [k, { label, argv: peer, role }] of peers.entries()) {
      procs.push(proc(label, [python, ...peer, out(k)], process.env, out(k), role));
    }
  }
  const tables = [];
  for (const protocol of opts.protocols) tables.push(await wholeProcess(procs, { runs, protocol }));
  return tables;
}

/** W8 at each size: one table per size, ours against the numpy one-liner. */
async function sizesTables(opts, dir, python, only) {
  const tables = [];
  for (const { rows, rounds } of SIZES[opts.quick ? 'quick' : 'full']) {
    if (only && !only.includes(rows)) continue;
    const data = join(dir, 'sizes-data.npy');
    const indices = join(dir, 'sizes-indices.npy');
    process.stderr.write(`bench: sizes, W8 at ${rows} rows\n`);
    writeRandomNpy(data, 'float32', [rows, W8_ROW_BYTES / 4], 1);
    writeRandomNpy(indices, 'int64', [rows], 2, idsBelow(rows));
    const peers = [
      { label: 'numpy one-liner', argv: ['-c', NUMPY_SCRIPT, data, indices], role: 'numpy' },
    ];
    const command = 'gather';
    const title = `W8 at ${rows} rows: f32 [${rows},64]`;
    const args = { dir, python, data, indices, command, axis: 0, peers, runs: rounds, floor: true };
    for (const r of await runTables(opts, args)) tables.push({ id: 'sizes', n: rows, title, ...r });
  }
  return tables;
}

/** 200k random 4 KiB rows of a 1 GiB .npy (quick: 200 of 1 MiB), numpy through mmap_mode='r'. */
async function oocTable(opts, dir, python) {
  const rows = opts.quick ? 256 : 1 << 18;
  const picks = opts.quick ? 200 : 200_000;
  const data = join(dir, 'ooc-data.npy');
  const indices = join(dir, 'ooc-indices.npy');
  process.stderr.write(`bench: ooc, ${picks} rows of f32 [${rows},1024]\n`);
  writeRandomNpy(data, 'float32', [rows, 1024], 3);
  writeRandomNpy(indices, 'int64', [picks], 4, idsBelow(rows));
  const peers = [
    {
      label: "numpy mmap_mode='r' + take + save",
      argv: ['-c', numpyMmapScript, data, indices],
      role: 'numpy',
    },
  ];
  const runs = opts.quick ? 2 : 7;
  const args = { dir, python, data, indices, command: 'gather', axis: 0, peers, runs };
  const title = `out of core: ${picks} random rows of f32 [${rows},1024]`;
  return (await runTables(opts, args)).map((r) => ({ id: 'ooc', title, ...r }));
}

/** gather-elements along axis 1 of [n, n] float32 (n = 4096; quick: 256). */
async function elementsTable(opts, dir, python) {
  const n = opts.quick ? 256 : 4096;
  const data = join(dir, 'elements-data.npy');
  const indices = join(dir, 'elements-indices.npy');
  process.stderr.write(`bench: elements, gather-elements axis 1 of f32 [${n},${n}]\n`);
  writeRandomNpy(data, 'float32', [n, n], 5);
  writeRandomNpy(indices, 'int64', [n, n], 6, idsBelow(n));
  const peers = [
    { label: 'numpy take_along_axis', argv: ['-c', takeAlongScript, data, indices], role: 'numpy' },
  ];
  if (python && hasOrt(python)) {
    const model = join(dir, 'elements.onnx');
    writeFileSync(
      model,
      oneNodeModel({
        op: 'GatherElements',
        attrs: { axis: 1 },
        inputs: [
          { name: 'data', dtype: 'float32', shape: [n, n] },
          { name: 'indices', dtype: 'int64', shape: [n, n] },
        ],
        output: { name: 'output', dtype: 'float32', shape: [n, n] },
      }),
    );
    peers.push({
      label: 'onnxruntime GatherElements (Python, 1 thread)',
      argv: ['-c', ortScript, model, data, indices],
      role: 'ort',
    });
  }
  const command = 'gather-elements';
  const runs = opts.quick ? 2 : 7;
  // The same command started again under the huge-page tunable (apps/cli/src/launch/).
  const variants = [
    { label: `tensorops ${command} (TENSOROPS_HUGE_PAGES=1)`, env: { TENSOROPS_HUGE_PAGES: '1' } },
  ];
  const args = { dir, python, data, indices, command, axis: 1, peers, runs, variants };
  const title = `gather-elements axis 1: f32 [${n},${n}], i64 [${n},${n}]`;
  return (await runTables(opts, args)).map((r) => ({ id: 'elements', title, ...r }));
}

/** The tables of the ids asked for (`sizes`, `ooc`, `elements`), in that order. */
export async function largeBench(opts, dir, python) {
  const tables = [];
  if (opts.ids.includes('sizes')) tables.push(...(await sizesTables(opts, dir, python, opts.rows)));
  if (opts.ids.includes('ooc')) tables.push(...(await oocTable(opts, dir, python)));
  if (opts.ids.includes('elements')) tables.push(...(await elementsTable(opts, dir, python)));
  return tables;
}

/**
 * The verdicts of one table: ours against each peer, and for sizes the growth of user time from
 * the size before (allowed: USER_GROWTH_BOUND / 4 per unit of growth, 4.4x for 4x the rows).
 */
export function largeVerdicts(r, previous, python) {
  const ours = r.rows.find((p) => p.role === 'ours');
  const out = [];
  for (const peer of r.rows.filter((p) => p.role === 'numpy' || p.role === 'ort')) {
    const name = r.id === 'elements' ? `${r.id} wall vs ${peer.role}` : `${r.id} wall vs numpy`;
    out.push(verdict(name, peer.verified && ours ? ours.ms / peer.ms : undefined, 1.0));
    if (r.id === 'sizes') {
      if (ours) out.push(`sizes noise: ${roundRatiosLine(ours, peer)}`);
      const rss = ours ? ours.rssMB / peer.rssMB : undefined;
      out.push(verdict(`sizes peak RSS vs numpy`, rss, 0.5));
      // Node's own start holds more than half of a small numpy run: the floor, shown beside.
      const start = r.rows.find((p) => p.role === 'start');
      if (rss > 0.5 && start) {
        out.push(
          `sizes floor: node -e 0 alone peaks at ${start.rssMB.toFixed(0)} MB, ${(start.rssMB / peer.rssMB).toFixed(2)}x numpy's peak RSS`,
        );
      }
      // The I/O the gather's strategy needs, overlapped as it does it: the floor of that strategy.
      const floor = r.rows.find((p) => p.role === 'floor');
      if (ours && floor) out.push(`sizes floor: ${ioFloorLine(floor, ours, peer)}`);
    }
  }
  // The growth of the work is judged on each size's least user time: on this VM the user time of
  // one gather moves from run to run with the machine's state (docs/performance.md), and the
  // machine only adds to it.
  const before = previous?.rows.find((p) => p.role === 'ours');
  if (r.id === 'sizes' && previous?.id === 'sizes' && ours?.userS !== undefined && before) {
    const growth = r.n / previous.n;
    const limit = Number(((USER_GROWTH_BOUND / 4) * growth).toFixed(2));
    const name = `sizes least user time ${previous.n} -> ${r.n} rows (${growth}x the rows)`;
    const s = (p) => `${p.userLeastS.toFixed(2)} (median ${p.userS.toFixed(2)})`;
    // numpy's own growth, for reference: its random accesses span the whole source at each size.
    const [peerBefore, peer] = [previous, r].map((t) => t.rows.find((p) => p.role === 'numpy'));
    const peerGrowth =
      peerBefore?.userLeastS && peer?.userLeastS
        ? `; numpy's ${s(peerBefore)} -> ${s(peer)} (${(peer.userLeastS / peerBefore.userLeastS).toFixed(2)}x)`
        : '';
    out.push(
      `${verdict(name, ours.userLeastS / before.userLeastS, limit)}; user s ${s(before)} -> ${s(ours)}${peerGrowth}`,
    );
    const floor = moveFloorLine(previous.n, r.n, python);
    if (floor) out.push(`sizes floor: ${floor}`);
  }
  return out;
}

/** Move costs by pass spans: measured once, for whichever protocol's table asks first. */
const moveCosts = new Map();

/**
 * Where both sizes go by passes and their passes move blocks into spans of different sizes, the
 * user time of a block's move in each span, measured alone: the floor of the moves' growth. Also
 * with 2 MiB pages, which WebAssembly memory (where the passes move) cannot ask for: what the moves
 * would grow by in a process that can.
 */
function moveFloorLine(rowsBefore, rows, python) {
  const [before, after] = [rowsBefore, rows].map((n) => passesOf(n * W8_ROW_BYTES));
  // An output of one chunk goes by the scan, which has no pass span.
  if (!python || before.spanBytes <= before.chunkBytes) return undefined;
  const mibs = [before, after].map((p) => p.spanBytes / 2 ** 20);
  if (mibs[0] === mibs[1]) return undefined;
  const key = `${mibs.join(' ')} ${before.reads}`;
  if (!moveCosts.has(key)) moveCosts.set(key, scatterCosts(python, mibs, before.reads));
  const { unasked, huge } = moveCosts.get(key);
  const [x, y] = mibs.map((m) => m.toFixed(0));
  const grows = ([a, b]) => ((rows / rowsBefore) * (b.ns / a.ns)).toFixed(2);
  const ns = ([a, b]) => `${a.ns.toFixed(0)} ns in ${x} MiB and ${b.ns.toFixed(0)} ns in ${y} MiB`;
  // The passes' WebAssembly memory gets what any process gets unasked: 4 KiB pages unless THP is on.
  const onHuge = Math.min(...unasked.map((c) => c.huge));
  const pages = onHuge < 0.1 ? '4 KiB pages' : `${(100 * onHuge).toFixed(0)}% 2 MiB pages`;
  return (
    `a block moved to a random place of a pass's span costs ${ns(unasked)} on ${pages}, as the passes' WebAssembly memory has them:` +
    ` the moves' user time grows ${grows(unasked)}x for ${rows / rowsBefore}x the rows;` +
    ` on 2 MiB pages, which WebAssembly memory cannot ask for, ${ns(huge)}: ${grows(huge)}x (numpy moving, memory touched first, least of 3)`
  );
}

/**
 * The noise beside a wall verdict: ours against the peer round by round (the two ran in the same
 * round, a few processes apart), the least, median and largest of those ratios, and the spread of
 * the peer's own rounds. A verdict whose bound lies inside that range can move to either
 * side of it from one run of the table to the next.
 */
function roundRatiosLine(ours, peer) {
  const ratios = ours.all.map((ms, i) => ms / peer.all[i]);
  const x = (v) => `${v.toFixed(2)}x`;
  return (
    `round by round, ours / numpy ranged ${x(Math.min(...ratios))}-${x(Math.max(...ratios))} (median ${x(median(ratios))}, ${ratios.length} rounds);` +
    ` numpy's own rounds ${Math.min(...peer.all)}-${Math.max(...peer.all)} ms`
  );
}
