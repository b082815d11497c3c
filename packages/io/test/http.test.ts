// Tensor files over HTTP, against real servers on 127.0.0.1 (http-servers.ts): requests and
// bytes are counted on the server side.

import { copyFileSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeSafetensors } from '../src/index.js';
import {
  collectStream,
  gatherFromFile,
  openTensorFile,
  writeTensorsFile,
} from '../src/node/index.js';
import type { HttpSourceOptions } from '../src/remote/http-source.js';
import { checkpointsManifest, copyShardedCheckpoint, NPZ_DIR } from './format-fixtures.js';
import { expectRejection } from './helpers.js';
import { bytesSent, serveFolder, type TestServer } from './http-servers.js';

const ROWS = 4096;
const COLS = 256;
const ROW_BYTES = COLS * 4;

let dir: string;
let server: TestServer;
let table: Uint8Array;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-http-'));
  table = new Uint8Array(ROWS * ROW_BYTES);
  for (let i = 0; i < table.length; i++) table[i] = (i * 2654435761) >>> 24;
  writeFileSync(
    join(dir, 'table.safetensors'),
    encodeSafetensors(
      [{ name: 'embed', tensor: { dtype: 'float32', shape: [ROWS, COLS], data: table } }],
      { format: 'pt' },
    ),
  );
  server = await serveFolder(dir);
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const fast: HttpSourceOptions = { retryMs: 5000 };
const rowsOf = (rows: number[]): Buffer =>
  Buffer.concat(rows.map((r) => table.subarray(r * ROW_BYTES, (r + 1) * ROW_BYTES)));

async function gatherRows(url: string, rows: number[], options = fast): Promise<Uint8Array> {
  const f = await openTensorFile(url, { http: options });
  try {
    const out = gatherFromFile(f, f.get('embed'), tensorFrom('int32', [rows.length], rows));
    expect(out.mode).toBe('ranged');
    return (await collectStream(out)).data;
  } finally {
    await f.close();
  }
}

describe('reading over HTTP', () => {
  it('reads a header with one request when it fits the first 64 KiB', async () => {
    const f = await openTensorFile(`${server.url}/table.safetensors`);
    await f.close();
    expect(f.tensors.map((t) => [t.name, t.shape])).toEqual([['embed', [ROWS, COLS]]]);
    expect(f.metadata).toEqual({ format: 'pt' });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.range).toBe('bytes=0-65535');
    expect(bytesSent(server)).toBe(65536);
  });

  it('reads a longer header with exactly two requests', async () => {
    const tensors = Array.from({ length: 3000 }, (_, i) => ({
      name: `model.layers.${i}.self_attn.q_proj.weight`,
      tensor: tensorFrom('uint8', [1], [i & 0xff]),
    }));
    const bytes = encodeSafetensors(tensors);
    writeFileSync(join(dir, 'wide.safetensors'), bytes);
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(headerLength).toBeGreaterThan(65536);
    const f = await openTensorFile(`${server.url}/wide.safetensors`);
    expect(server.requests.length).toBe(2);
    const t = await f.read(f.get('model.layers.2999.self_attn.q_proj.weight'));
    await f.close();
    expect(f.tensors).toHaveLength(3000);
    expect(Array.from(t.data)).toEqual([2999 & 0xff]);
  });

  it('gathers scattered rows with one request each, within 1.1x the output plus the first bytes', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => (i * 397 + 11) % ROWS);
    const out = await gatherRows(`${server.url}/table.safetensors`, rows);
    expect(Buffer.from(out).equals(rowsOf(rows))).toBe(true);
    const output = rows.length * ROW_BYTES;
    expect(bytesSent(server)).toBeLessThanOrEqual(65536 + 1.1 * output);
    expect(server.requests.length).toBeLessThanOrEqual(1 + rows.length);
    expect(server.maxInFlight).toBeLessThanOrEqual(8);
  });

  it('merges neighbouring rows into one request', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => 1000 + i);
    const out = await gatherRows(`${server.url}/table.safetensors`, rows);
    expect(Buffer.from(out).equals(rowsOf(rows))).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.bytes).toBe(50 * ROW_BYTES);
  });

  it('makes every request after the first conditional on the first answer', async () => {
    await gatherRows(`${server.url}/table.safetensors`, [5, 3000, 17]);
    const [first, ...rest] = server.requests;
    expect(first?.headers['if-range']).toBeUndefined();
    expect(rest.length).toBeGreaterThan(0);
    for (const r of rest) {
      // send's ETags are weak, so the validator is Last-Modified.
      expect(r.headers['if-range']).toBeDefined();
      expect(r.headers['if-unmodified-since']).toBe(r.headers['if-range']);
    }
  });

  it('fails loudly when the file changes between requests', async () => {
    const f = await openTensorFile(`${server.url}/table.safetensors`, { http: fast });
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'table.safetensors'), later, later);
    const e = await expectRejection(f.read(f.get('embed')));
    await f.close();
    expect(e.code).toBe('E_IO');
    expect(e.message).toContain('the file changed on the server while it was being read');
    expect(server.requests.map((r) => r.status)).toEqual([206, 412]);
  });

  it('retries a connection cut mid-body, and 503s, then succeeds', async () => {
    server.faults = { dropNext: { count: 2, after: 1000 } };
    const rows = [700, 2000];
    expect(
      Buffer.from(await gatherRows(`${server.url}/table.safetensors`, rows)).equals(rowsOf(rows)),
    ).toBe(true);
    // The open, two cut answers (1000 bytes each), two whole retries.
    expect(server.requests.map((r) => r.bytes).sort((a, b) => a - b)).toEqual([
      1000,
      1000,
      ROW_BYTES,
      ROW_BYTES,
      65536,
    ]);
    server.requests.length = 0;
    server.faults = { failNext: { count: 2, status: 503 } };
    expect(
      Buffer.from(await gatherRows(`${server.url}/table.safetensors`, [900])).equals(rowsOf([900])),
    ).toBe(true);
    expect(server.requests.map((r) => r.status)).toEqual([206, 503, 503, 206]);
  });

  it('gives up on a server that keeps failing or stalls, within the time allowed', async () => {
    server.faults = { failNext: { count: 1000, status: 500 } };
    let e = await expectRejection(
      gatherRows(`${server.url}/table.safetensors`, [3000], { retryMs: 800 }),
    );
    expect(e.message).toMatch(
      /HTTP 500 \(gave up after \d+ tries in [\d.]+ s; the retryMs option allows more time\)$/,
    );
    server.faults = { stall: true };
    e = await expectRejection(
      gatherRows(`${server.url}/table.safetensors`, [3000], { retryMs: 600, idleMs: 200 }),
    );
    // The first try can only end by the idle cut (0.2 s < 0.6 s), so there is a second one; the
    // last try ends by whichever comes first, its own idle cut or the request's deadline.
    expect(e.message).toMatch(
      /: (no data for 0\.2 s|no complete answer within 0\.6 s) \(gave up after [2-9] tries/,
    );
  });

  it('does not retry what will not change: a missing file is one request', async () => {
    const e = await expectRejection(openTensorFile(`${server.url}/nope.safetensors`));
    expect(e.message).toBe(`${server.url}/nope.safetensors: HTTP 404 Not Found`);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a server that ignores Range, unless the file may be downloaded whole', async () => {
    server.faults = { ignoreRange: true };
    const url = `${server.url}/table.safetensors`;
    const e = await expectRejection(openTensorFile(url));
    expect(e.message).toMatch(
      /ignores Range requests \(HTTP 200 to a ranged request\) and the file is \d+ bytes; allow downloading it whole with maxDownload: \d+ \(now 0\)/,
    );
    expect(server.requests[0]?.bytes).toBeLessThan(1 << 20);
    const out = await gatherRows(url, [3, 1], { maxDownload: 8 << 20 });
    expect(Buffer.from(out).equals(rowsOf([3, 1]))).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('waits on a slow server with a bounded number of requests in flight', async () => {
    server.faults = { delayMs: 100 };
    const rows = Array.from({ length: 40 }, (_, i) => i * 100);
    expect(
      Buffer.from(await gatherRows(`${server.url}/table.safetensors`, rows)).equals(rowsOf(rows)),
    ).toBe(true);
    expect(server.maxInFlight).toBe(8);
  });

  it('sends extra headers and never shows their values', async () => {
    server.faults = { authorization: 'Bearer s3cr3t-t0ken' };
    const url = `${server.url}/table.safetensors?sig=s3cr3t-t0ken`;
    const e = await expectRejection(openTensorFile(url));
    expect(e.message).toBe(
      `${server.url}/table.safetensors?…: HTTP 401 Unauthorized (send credentials in the headers option)`,
    );
    const events: string[] = [];
    const f = await openTensorFile(url, {
      http: {
        headers: { Authorization: 'Bearer s3cr3t-t0ken' },
        onRequest: (ev) => events.push(JSON.stringify(ev)),
      },
    });
    await f.read(f.get('embed'));
    await f.close();
    expect(events.length).toBe(2);
    expect(events.join('\n')).not.toContain('s3cr3t');
    expect(f.path).not.toContain('s3cr3t');
  });
});

describe('containers over HTTP', () => {
  it('opens only the shards a tensor needs from a sharded checkpoint', async () => {
    copyShardedCheckpoint(dir);
    const url = `${server.url}/model.safetensors.index.json`;
    const f = await openTensorFile(url, { tensor: 'model.norm.weight' });
    const t = await f.read(f.get('model.norm.weight'));
    await f.close();
    const e = checkpointsManifest.tensors.find((x) => x.name === 'model.norm.weight');
    expect(Buffer.from(t.data).toString('base64')).toBe(e?.b64);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/model.safetensors.index.json',
      '/model-00001-of-00003.safetensors',
    ]);
    const all = await openTensorFile(url);
    expect(all.tensors).toHaveLength(checkpointsManifest.tensors.length);
    const rows = await collectStream(
      gatherFromFile(all, all.get('lm_head.weight'), tensorFrom('int32', [2], [63, 0])),
    );
    await all.close();
    const src = Buffer.from(
      checkpointsManifest.tensors.find((x) => x.name === 'lm_head.weight')?.b64 ?? '',
      'base64',
    );
    expect(
      Buffer.from(rows.data).equals(
        Buffer.concat([src.subarray(63 * 32, 64 * 32), src.subarray(0, 32)]),
      ),
    ).toBe(true);
  });

  it('reads the headers of many shards eight at a time, one request each, and only those needed', async () => {
    const shards = 40;
    const map: Record<string, string> = {};
    for (let k = 0; k < shards; k++) {
      const name = `layers.${k}.weight`;
      map[name] = `model-${k}.safetensors`;
      writeFileSync(
        join(dir, `model-${k}.safetensors`),
        encodeSafetensors([{ name, tensor: tensorFrom('int32', [2], [k, -k]) }]),
      );
    }
    writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: map }));
    server.faults = { delayMs: 20 };
    const url = `${server.url}/model.safetensors.index.json`;
    const f = await openTensorFile(url, { http: fast });
    try {
      expect(f.tensors.map((t) => [t.name, t.shard?.name])).toEqual(Object.entries(map));
      const last = await f.read(f.get(`layers.${shards - 1}.weight`));
      expect(Array.from(new Int32Array(last.data.slice().buffer))).toEqual([39, -39]);
    } finally {
      await f.close();
    }
    // The index, then each shard's header in its first request; the data came with it.
    expect(server.requests).toHaveLength(1 + shards);
    expect(server.maxInFlight).toBe(8);
    const seen = server.requests.length;
    const one = await openTensorFile(url, { http: fast, tensor: 'layers.17.weight' });
    await one.close();
    expect(server.requests.slice(seen).map((r) => r.path)).toEqual([
      '/model.safetensors.index.json',
      '/model-17.safetensors',
    ]);
  });

  it('reads stored .npz members and .npy files by ranges', async () => {
    copyFileSync(join(NPZ_DIR, 'savez.npz'), join(dir, 'savez.npz'));
    await writeTensorsFile(join(dir, 'big.npz'), [
      { name: 'embed', data: { dtype: 'float32', shape: [ROWS, COLS], data: table } },
    ]);
    await writeTensorsFile(join(dir, 'big.npy'), [
      { name: 'x', data: { dtype: 'float32', shape: [ROWS, COLS], data: table } },
    ]);
    for (const file of ['big.npz', 'big.npy']) {
      server.requests.length = 0;
      const f = await openTensorFile(`${server.url}/${file}`, { http: fast });
      const out = await collectStream(
        gatherFromFile(f, f.tensors[0] as never, tensorFrom('int32', [2], [4000, 2])),
      );
      await f.close();
      expect(Buffer.from(out.data).equals(rowsOf([4000, 2])), file).toBe(true);
      expect(bytesSent(server), file).toBeLessThan(65536 * 3 + 2 * ROW_BYTES);
    }
    const local = await openTensorFile(join(NPZ_DIR, 'savez.npz'));
    const remote = await openTensorFile(`${server.url}/savez.npz`);
    for (const t of local.tensors) {
      const a = await local.read(t);
      const b = await remote.read(remote.get(t.name as string));
      expect(Buffer.from(b.data).equals(Buffer.from(a.data)), t.name ?? '').toBe(true);
    }
    await local.close();
    await remote.close();
  });
});
