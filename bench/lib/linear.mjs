// The "linear" workload: every index, text input and header is parsed in time linear in its size.
// Whole processes of the built CLI on inputs of N and 10N (a shard index of many shards, an index
// of many tensors in one shard, text indices valid and with a bad value at the end of one long
// line), each pair beside the same command on a trivial input, which stands for what a process
// costs whatever its input (node's start, the CLI's code). Every output, report and error message
// is checked in the warm-up round.
//
// The verdict of a pair: the wall time at 10N is at most 12x the one at N. Work linear in the
// input, after a start that costs the same at any size, gives at most 10x; the bound leaves 20%
// for the machine's noise and for what grows a little faster than the input without any step
// being quadratic: a hash table of 10x the entries outgrows the CPU caches, and each insert then
// waits longer on memory. A quadratic step of q ms at N takes 100q at 10N: it breaks the bound
// once q passes an eighth of the start plus a 44th of the linear work, tens of ms at these
// sizes. The time above the trivial input's is shown beside it: the start taken out, it tells
// the growth of the work itself, within the noise of two differences.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeNpy, encodeSafetensors } from '../../packages/io/dist/index.js';
import { writeNpy } from './data.mjs';
import { CLI, proc, tensoropsEnv, wholeProcess } from './whole-process.mjs';

/** Wall time at 10N against N that the verdict allows. */
export const LINEAR_BOUND = 12;

/** The float32 values 0..7: the one tensor ([2, 4]) the shard-index pair gathers from. */
const ROWS = Buffer.from(new Float32Array([0, 1, 2, 3, 4, 5, 6, 7]).buffer);

/** The uint8 data 0..7 that the text-index pairs gather from: the output repeats the ids. */
const BYTES = { dtype: 'uint8', shape: [8], data: Buffer.from([0, 1, 2, 3, 4, 5, 6, 7]) };

/** `n` ids cycling through 0..7, as bytes: what gathering them from BYTES gives. */
const cycling = (n) => Buffer.from(Array.from({ length: n }, (_, i) => i % 8));

/** What the output .npy at `path` must hold: `dtype`, `shape` and these bytes. */
function checkNpy(path, dtype, shape, bytes) {
  const t = decodeNpy(readFileSync(path));
  if (t.dtype !== dtype || t.shape.join() !== shape.join() || !Buffer.from(t.data).equals(bytes)) {
    return `${path}: ${t.dtype} [${t.shape}] differs from ${dtype} [${shape}]`;
  }
  return null;
}

/**
 * The pairs. `make(dir, n)` writes the input of size n and returns its files (`inputs`), the
 * command (`args` after the CLI), the exit status it must end with (`status`, default 0), the
 * file it writes (`out`) and `check(result)`, null when its output or message is the right one.
 */
const PAIRS = [
  {
    id: 'shard index',
    unit: 'shards',
    sizes: { full: 50_000, quick: 10_000 },
    // A one-row gather from the last shard: the index is parsed whole, one shard is opened, so
    // only that one is written. A bare index is a scalar, so the row comes out as shape [4].
    make(dir, n) {
      const map = {};
      for (let k = 0; k < n; k++) map[`layers.${k}.weight`] = `model-${k}.safetensors`;
      const last = `layers.${n - 1}.weight`;
      writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: map }));
      const tensor = { dtype: 'float32', shape: [2, 4], data: ROWS };
      writeFileSync(
        join(dir, `model-${n - 1}.safetensors`),
        encodeSafetensors([{ name: last, tensor }]),
      );
      const out = join(dir, 'out.npy');
      return {
        inputs: [join(dir, 'model.safetensors.index.json')],
        args: ['gather', `${join(dir, 'model.safetensors.index.json')}:${last}`, '--indices', '1'],
        out,
        check: () => checkNpy(out, 'float32', [4], ROWS.subarray(16)),
      };
    },
  },
  {
    id: 'tensors in one shard',
    unit: 'tensors',
    sizes: { full: 10_000, quick: 2_000 },
    // `inspect` through the index: the index and the shard's header both list every tensor.
    make(dir, n) {
      const tensors = [];
      const map = {};
      for (let k = 0; k < n; k++) {
        const data = new Uint8Array([k & 0xff]);
        tensors.push({ name: `t${k}`, tensor: { dtype: 'uint8', shape: [1], data } });
        map[`t${k}`] = 'model.safetensors';
      }
      writeFileSync(join(dir, 'model.safetensors'), encodeSafetensors(tensors));
      const index = join(dir, 'model.safetensors.index.json');
      writeFileSync(index, JSON.stringify({ weight_map: map }));
      return {
        inputs: [index, join(dir, 'model.safetensors')],
        args: ['inspect', index],
        check: (r) =>
          r.stdout.startsWith(`${index}: safetensors, 1 shard, ${n} tensor`)
            ? null
            : `inspect said: ${r.stdout.split('\n')[0]}`,
      };
    },
  },
  {
    id: 'text indices',
    unit: 'ids',
    sizes: { full: 1 << 20, quick: 1 << 18 },
    make(dir, n) {
      const ids = cycling(n);
      // One id a line, two bytes each.
      const text = Buffer.alloc(2 * n, '\n');
      for (let i = 0; i < n; i++) text[2 * i] = 0x30 + ids[i];
      writeFileSync(join(dir, 'ids.txt'), text);
      writeNpy(join(dir, 'data.npy'), BYTES);
      const out = join(dir, 'out.npy');
      return {
        inputs: [join(dir, 'ids.txt')],
        args: ['gather', join(dir, 'data.npy'), join(dir, 'ids.txt')],
        out,
        // One id alone is a scalar, as numpy.loadtxt reads it, so the output has no axis.
        check: () => checkNpy(out, 'uint8', n === 1 ? [] : [n], ids),
      };
    },
  },
  {
    id: 'a long bad line',
    unit: 'values',
    sizes: { full: 1 << 20, quick: 1 << 18 },
    // `7,7,...,7,x`: n values, then one that is not an integer, all on one line.
    make(dir, n) {
      writeFileSync(join(dir, 'ids.txt'), `${'7,'.repeat(n)}x\n`);
      writeNpy(join(dir, 'data.npy'), BYTES);
      const message = `tensorops: error: ${join(dir, 'ids.txt')}: line 1, column ${2 * n + 1}: 'x' is not an integer\n`;
      return {
        inputs: [join(dir, 'ids.txt')],
        args: ['gather', join(dir, 'data.npy'), join(dir, 'ids.txt')],
        out: join(dir, 'out.npy'),
        status: 1,
        check: (r) => (r.stderr === message ? null : `stderr: ${r.stderr.split('\n')[0]}`),
      };
    },
  },
];

/**
 * Runs every pair; prints a table and a verdict per pair, and returns them as data (for --json).
 * Throws when a command's exit status or output is not the right one.
 */
export async function linearBench(opts, root) {
  const rounds = opts.quick ? 1 : 3;
  const env = tensoropsEnv(root);
  const rows = [];
  for (const pair of PAIRS) {
    const n = pair.sizes[opts.quick ? 'quick' : 'full'];
    process.stderr.write(`bench: linear, ${pair.id}: 1, ${n} and ${10 * n} ${pair.unit}\n`);
    const cases = [1, n, 10 * n].map((size) => {
      const dir = join(root, `linear-${size}`);
      mkdirSync(dir, { recursive: true });
      const c = pair.make(dir, size);
      return { size, dir, bytes: c.inputs.reduce((sum, f) => sum + statSync(f).size, 0), ...c };
    });
    const procs = cases.map((c) =>
      proc(
        `${pair.id}, ${c.size} ${pair.unit}`,
        [process.execPath, CLI, ...c.args, ...(c.out ? ['-o', c.out] : [])],
        env,
        c.out ?? null,
        String(c.size),
        false,
        { status: c.status ?? 0, check: c.check },
      ),
    );
    const r = await wholeProcess(procs, { runs: rounds });
    const ratio = r.rows[2].ms / r.rows[1].ms;
    rows.push({ pair, cases, r, ratio, met: ratio <= LINEAR_BOUND });
    for (const c of cases) rmSync(c.dir, { recursive: true, force: true });
  }
  printLinear(rows, rounds);
  return rows.map(({ pair, cases, r, ratio, met }) => ({
    pair: pair.id,
    sizes: cases.map((c) => c.size),
    bytes: cases.map((c) => c.bytes),
    ms: r.rows.map((row) => row.ms),
    rssMB: r.rows.map((row) => row.rssMB),
    ratio,
    met,
  }));
}

function printLinear(rows, rounds) {
  const load = `${rows[0].r.load.before.load.toFixed(1)} -> ${rows.at(-1).r.load.after.load.toFixed(1)}`;
  console.log(
    `\nlinear: whole processes on inputs 10x apart, median of ${rounds} alternating rounds after 1 warm-up, load average ${load} (target: 10N takes <= ${LINEAR_BOUND}x the time of N)`,
  );
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(2);
  console.log('| pair | input | MiB | wall ms | rounds min-max | peak RSS MB |');
  console.log('|:--|--:|--:|--:|--:|--:|');
  for (const { pair, cases, r } of rows) {
    for (const [k, c] of cases.entries()) {
      const row = r.rows[k];
      const spread = `${Math.min(...row.all)}-${Math.max(...row.all)}`;
      console.log(
        `| ${pair.id} | ${c.size} ${pair.unit} | ${mb(c.bytes)} | ${row.ms.toFixed(0)} | ${spread} | ${row.rssMB.toFixed(0)} |`,
      );
    }
  }
  for (const { pair, cases, r, ratio, met } of rows) {
    const [trivial, small, large] = r.rows;
    const bytes = (cases[2].bytes / cases[1].bytes).toFixed(1);
    const above = (large.ms - trivial.ms) / (small.ms - trivial.ms);
    console.log(
      `- ${pair.id}: ${cases[1].size} -> ${cases[2].size} ${pair.unit} (${bytes}x the bytes): ${ratio.toFixed(1)}x the time (target <= ${LINEAR_BOUND}x) ${met ? 'met' : 'MISSED'}; above the trivial input's ${(small.ms - trivial.ms).toFixed(0)} -> ${(large.ms - trivial.ms).toFixed(0)} ms, ${above.toFixed(1)}x`,
    );
  }
}
