#!/usr/bin/env node
// Gather from files larger than a comfortable memory budget, measured next to numpy.
//
//   node scripts/large-file-demo.mjs [--dir /tmp] [--rows 917504] [--cols 1024] [--picks 10000] [--keep]
//
// Writes a float32 [rows, cols] tensor (3.5 GiB by default) as .npy and as the second tensor of a
// .safetensors file (real data, written in 64 MiB chunks), then gathers `picks` random rows:
//   tensorops gather huge.npy ids.npy -o rows.npy
//   tensorops gather model.safetensors:emb ids.npy -o rows.npy
// and the same with numpy: np.load(mmap_mode='r') + np.take for .npy, np.memmap at the header's
// data offset for .safetensors (numpy has no reader for it). Each run is measured with
// /usr/bin/time (wall time, peak RSS), with the file evicted from the page cache first ("cold",
// posix_fadvise DONTNEED through python3) and again with it cached ("warm"). Outputs are compared
// byte for byte. Needs the CLI built (apps/cli/dist/tensorops.cjs), python3 with numpy, and
// /usr/bin/time. Files are deleted at the end unless --keep.

import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'apps/cli/dist/tensorops.cjs');
const { encodeNpyHeader, planSafetensors } = await import(join(ROOT, 'packages/io/dist/index.js'));

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const ROWS = Number(opt('rows', 917504));
const COLS = Number(opt('cols', 1024));
const PICKS = Number(opt('picks', 10000));
const KEEP = args.includes('--keep');
const dir = mkdtempSync(join(opt('dir', '/tmp'), 'tensorops-large-'));
const ROW_BYTES = COLS * 4;
const TOTAL = ROWS * ROW_BYTES;

function run(cmd, argv, options = {}) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 26, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed:\n${r.stderr}`);
  return r;
}

/** Writes the header, then rows whose values are row + col / 2048 (exact in float32). */
function writeTensorFile(path, header) {
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  const rowsPerChunk = Math.max(1, Math.floor((64 << 20) / ROW_BYTES));
  const chunk = new Float32Array(rowsPerChunk * COLS);
  for (let r0 = 0; r0 < ROWS; r0 += rowsPerChunk) {
    const n = Math.min(rowsPerChunk, ROWS - r0);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < COLS; c++) chunk[r * COLS + c] = ((r0 + r) % 65536) + c / 2048;
    }
    const bytes = new Uint8Array(chunk.buffer, 0, n * ROW_BYTES);
    writeSync(fd, bytes);
  }
  closeSync(fd);
}

function evict(path) {
  run('python3', [
    '-c',
    'import os,sys\nfd=os.open(sys.argv[1],os.O_RDONLY)\nos.fsync(fd)\nos.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)\nos.close(fd)',
    path,
  ]);
}

function timed(argv) {
  const r = run('/usr/bin/time', ['-f', '%e %M', ...argv]);
  const [seconds, kib] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { seconds, mib: kib / 1024 };
}

const NUMPY_NPY = `import numpy as np, sys
a = np.load(sys.argv[1], mmap_mode='r')
np.save(sys.argv[3], np.take(a, np.load(sys.argv[2]), axis=0))`;

const NUMPY_SAFETENSORS = `import numpy as np, sys, json, struct
f = open(sys.argv[1], 'rb'); n = struct.unpack('<Q', f.read(8))[0]; h = json.loads(f.read(n))['emb']
a = np.memmap(sys.argv[1], dtype='<f4', mode='r', offset=8 + n + h['data_offsets'][0], shape=tuple(h['shape']))
np.save(sys.argv[3], np.take(a, np.load(sys.argv[2]), axis=0))`;

try {
  console.log(`# tensorops large-file gather, ${new Date().toISOString()}`);
  console.log(
    `tensor float32 [${ROWS}, ${COLS}] = ${(TOTAL / 2 ** 30).toFixed(2)} GiB; ${PICKS} random rows; dir ${dir}`,
  );
  const npy = join(dir, 'huge.npy');
  const st = join(dir, 'model.safetensors');
  const ids = join(dir, 'ids.npy');
  let t0 = performance.now();
  writeTensorFile(npy, encodeNpyHeader({ dtype: 'float32', shape: [ROWS, COLS] }));
  const layout = planSafetensors(
    [
      { name: 'bias', dtype: 'float32', shape: [COLS] },
      { name: 'emb', dtype: 'float32', shape: [ROWS, COLS] },
    ],
    { format: 'demo' },
  );
  // The writer orders by dtype, then name: 'bias' comes first. Write it, then the big tensor.
  const head = new Uint8Array(layout.header.length + ROW_BYTES);
  head.set(layout.header);
  writeTensorFile(st, head);
  console.log(
    `wrote ${statSync(npy).size} + ${statSync(st).size} bytes in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  run('python3', [
    '-c',
    `import numpy as np; np.save('${ids}', np.random.default_rng(7).integers(0, ${ROWS}, ${PICKS}))`,
  ]);

  const cases = [
    ['.npy', 'tensorops', (out) => ['node', BIN, 'gather', npy, ids, '-o', out], npy],
    ['.npy', 'numpy mmap', (out) => ['python3', '-c', NUMPY_NPY, npy, ids, out], npy],
    [
      '.safetensors',
      'tensorops',
      (out) => ['node', BIN, 'gather', `${st}:emb`, ids, '-o', out],
      st,
    ],
    [
      '.safetensors',
      'numpy memmap',
      (out) => ['python3', '-c', NUMPY_SAFETENSORS, st, ids, out],
      st,
    ],
  ];
  const rows = [];
  for (const cache of ['cold', 'warm']) {
    for (const [format, tool, argv, input] of cases) {
      const out = join(dir, `out-${tool.split(' ')[0]}-${format.slice(1)}.npy`);
      if (cache === 'cold') evict(input);
      t0 = performance.now();
      const m = timed(argv(out));
      rows.push({ format, tool, cache, ...m, out });
    }
  }
  const reference = readFileSync(rows[1].out);
  console.log('\n| input | tool | page cache | wall time (s) | peak RSS (MiB) | output = numpy |');
  console.log('|---|---|---|---:|---:|---|');
  for (const r of rows) {
    const same = readFileSync(r.out).equals(reference);
    console.log(
      `| ${r.format} | ${r.tool} | ${r.cache} | ${r.seconds.toFixed(2)} | ${r.mib.toFixed(0)} | ${same ? 'yes' : 'NO'} |`,
    );
  }
  const baseline = timed(['node', '-e', '0']);
  console.log(
    `\n(node -e 0 alone: ${baseline.seconds.toFixed(2)} s, ${baseline.mib.toFixed(0)} MiB peak RSS)`,
  );
} finally {
  if (KEEP) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
