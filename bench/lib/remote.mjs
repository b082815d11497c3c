// The remote row: a 1 GiB .safetensors (128 MiB with --quick) served over loopback by `send`
// (Range, ETag), read by the built CLI: `inspect` and a 1,000-row gather of scattered rows, with
// the requests and body bytes the server counted, against a plain full download of the same file
// (`curl -o`). The gather's output is checked against the same gather from the local file.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planSafetensors } from '../../packages/io/dist/index.js';
import { randomInt32, sha256, writeNpy } from './data.mjs';
import { median } from './timing.mjs';
import { CLI } from './whole-process.mjs';

// `send` is a devDependency of @tensorops/io (its HTTP tests serve files with it).
const send = createRequire(new URL('../../packages/io/package.json', import.meta.url))('send');

const COLS = 1024;
const PICKS = 1000;

function writeTable(path, rows) {
  const layout = planSafetensors([{ name: 'embed', dtype: 'float32', shape: [rows, COLS] }], {
    format: 'pt',
  });
  const fd = openSync(path, 'w');
  writeSync(fd, layout.header);
  const block = new Uint8Array(64 << 20);
  for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
  for (let left = layout.dataBytes; left > 0; left -= block.length) {
    writeSync(fd, block, 0, Math.min(left, block.length));
  }
  closeSync(fd);
  return layout.header.length + layout.dataBytes;
}

function serve(root) {
  const seen = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    seen.requests++;
    const write = res.write.bind(res);
    res.write = (chunk, ...rest) => {
      seen.bytes += chunk.length;
      return write(chunk, ...rest);
    };
    send(req, decodeURIComponent(req.url.split('?')[0]), { root }).pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, seen, server }),
    ),
  );
}

function run(argv) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // stdout is a pipe that is drained: a read-write /dev/null (stdio 'ignore') is how a closed
    // stdout looks to the CLI, which refuses to print into it.
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0
        ? resolve(performance.now() - t0)
        : reject(new Error(`${argv.slice(0, 3).join(' ')} failed: ${stderr.split('\n')[0]}`)),
    );
  });
}

/** Runs `argv` `runs` times: median wall ms, and requests / bytes of one run. */
async function measured(http, argv, runs) {
  const times = [];
  let requests = 0;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    http.seen.requests = 0;
    http.seen.bytes = 0;
    times.push(await run(argv));
    requests = http.seen.requests;
    bytes = http.seen.bytes;
  }
  return { ms: median(times), requests, bytes };
}

export async function remoteBench(opts) {
  const dir = mkdtempSync(join(tmpdir(), 'tensorops-bench-remote-'));
  const rows = opts.quick ? 32768 : 262144;
  process.stderr.write(`bench: remote, ${PICKS} rows of a [${rows}, ${COLS}] float32 table\n`);
  const http = await serve(dir);
  try {
    const size = writeTable(join(dir, 'table.safetensors'), rows);
    writeNpy(join(dir, 'idx.npy'), randomInt32([PICKS], 0, rows, 17));
    const url = `${http.url}/table.safetensors`;
    const runs = opts.quick ? 1 : 3;
    const local = join(dir, 'local.npy');
    await run([
      process.execPath,
      CLI,
      'gather',
      `${join(dir, 'table.safetensors')}:embed`,
      join(dir, 'idx.npy'),
      '-o',
      local,
    ]);
    const out = join(dir, 'remote.npy');
    const inspect = await measured(http, [process.execPath, CLI, 'inspect', url], runs);
    const gather = await measured(
      http,
      [process.execPath, CLI, 'gather', `${url}:embed`, join(dir, 'idx.npy'), '-o', out],
      runs,
    );
    const verified = sha256(readFileSync(out)) === sha256(readFileSync(local));
    rmSync(out);
    let curl;
    try {
      curl = await measured(http, ['curl', '-sf', '-o', join(dir, 'copy.safetensors'), url], runs);
    } catch (e) {
      curl = { error: String(e.message).split('\n')[0] };
    }
    const result = {
      size,
      rows,
      picks: PICKS,
      outputBytes: PICKS * COLS * 4,
      runs,
      inspect,
      gather,
      curl,
      verified,
    };
    printRemote(result);
    return result;
  } finally {
    http.server.closeAllConnections();
    http.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function printRemote(r) {
  const mb = (b) => (b / 2 ** 20).toFixed(b < 2 ** 20 ? 3 : 1);
  console.log(
    `\nremote: ${mb(r.size)} MiB .safetensors over loopback (send, Range + ETag); ${r.picks} scattered rows = ${mb(r.outputBytes)} MiB of output; median of ${r.runs} runs, whole processes`,
  );
  const line = (label, m) =>
    m.error
      ? `  ${label.padEnd(34)} ${m.error}`
      : `  ${label.padEnd(34)} ${m.ms.toFixed(0).padStart(8)} ms ${String(m.requests).padStart(6)} requests ${mb(m.bytes).padStart(9)} MiB${r.curl.ms && m !== r.curl ? `   ${(r.curl.ms / m.ms).toFixed(1)}x faster than curl, ${(r.curl.bytes / Math.max(1, m.bytes)).toFixed(0)}x fewer bytes` : ''}`;
  console.log(line('tensorops inspect URL', r.inspect));
  console.log(line(`tensorops gather URL:embed (${r.picks} rows)`, r.gather));
  console.log(line('curl -o (full download)', r.curl));
  if (!r.verified) console.log('  REMOTE GATHER OUTPUT DIFFERS from the local gather');
}
