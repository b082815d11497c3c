// gguf rows: 1,000 token embeddings gathered from a quantized token_embd.weight (Q8_0 and Q4_K),
// whole processes: `tensorops gather FILE.gguf:token_embd.weight ids.npy -o out.npy` against
// gguf-py (GGUFReader, the picked rows' blocks, gguf.quants.dequantize, np.save). The .gguf files
// are written once by gguf-py into bench/.data/ and kept for later runs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomInt64, writeNpy } from './data.mjs';
import { CLI, proc, tensoropsEnv, wholeProcess } from './whole-process.mjs';

const DATA = fileURLToPath(new URL('../.data/', import.meta.url));
const PEER = fileURLToPath(new URL('../gguf-peer.py', import.meta.url));
const COLS = 4096;
const PICKS = 1000;

/** The token_embd.weight file of `type`, written by gguf-py unless an earlier run left it. */
function modelFile(python, type, rows) {
  mkdirSync(DATA, { recursive: true });
  const path = join(DATA, `token_embd-${type}-${rows}x${COLS}.gguf`);
  if (!existsSync(path)) {
    process.stderr.write(`bench: writing ${path} with gguf-py\n`);
    const r = spawnSync(python, [PEER, 'make', path, type, String(rows), String(COLS)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`gguf-peer.py make ${type} failed`);
  }
  return path;
}

/** One result per type and protocol, each verified against gguf-py's output. */
export async function ggufBench(opts, ctx, python) {
  if (!python) throw new Error('gguf rows need python3 with numpy and gguf (gguf-py)');
  const rows = opts.quick ? 16_000 : 128_000;
  const ids = join(ctx.dir, 'gguf-ids.npy');
  writeNpy(ids, randomInt64([PICKS], rows, 11));
  const results = [];
  for (const type of ['Q8_0', 'Q4_K']) {
    const model = modelFile(python, type, rows);
    const title = `gguf ${type}: ${PICKS} rows of token_embd.weight [${rows}, ${COLS}] dequantized to a .npy`;
    process.stderr.write(`bench: ${title}\n`);
    const out = (k) => join(ctx.dir, `gguf-out-${k}.npy`);
    const procs = [
      proc(
        'tensorops gather',
        [process.execPath, CLI, 'gather', `${model}:token_embd.weight`, ids, '-o', out(1)],
        tensoropsEnv(ctx.dir),
        out(1),
        'ours',
      ),
      proc(
        `gguf-py (${python})`,
        [python, PEER, 'take', model, ids, out(2)],
        process.env,
        out(2),
        'numpy',
      ),
    ];
    const runs = opts.quick ? 3 : 11;
    for (const protocol of opts.protocols) {
      results.push({ id: 'gguf', type, title, ...(await wholeProcess(procs, { runs, protocol })) });
    }
  }
  return results;
}
