// @tensorops/io in real headless Chromium: the main entry bundled for the browser (esbuild), a page
// served from 127.0.0.1 (http-servers.ts, which counts requests and bytes), driven over the
// DevTools protocol (puppeteer-core). Chromium is @sparticuz/chromium's binary, unpacked into the
// test's temp dir. The page reads real Files chosen in its file input and URLs, gathers rows, and
// its bytes are compared with numpy's golden output or with the same gather run by Node.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gather, type Tensor, tensorFrom } from '@tensorops/core';
import { build } from 'esbuild';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSafetensors } from '../src/index.js';
import {
  collectStream,
  gatherFromFile,
  openTensorFile,
  readTensorFile,
} from '../src/node/index.js';
import type { PageApi } from './browser/page.js';
import {
  checkpointsManifest,
  copyShardedCheckpoint,
  type ExpectedTensor,
  NPZ_DIR,
  npzManifest,
} from './format-fixtures.js';
import { bytesSent, serveFolder, type TestServer } from './http-servers.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI_FIXTURES = join(HERE, '../../../fixtures/cli');
/** Every step with Chromium (start, a page call) fails after this long instead of hanging. */
const STEP_MS = 60_000;
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const ROWS = 4096;
const ROW_BYTES = 256 * 4;

let dir: string;
let server: TestServer;
let chromium: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let table: Uint8Array;
/** The source files in the page's bundle. */
let bundled: string[] = [];

/** Unpacks @sparticuz/chromium's binary into `into` (it unpacks to the temp dir it is given). */
function unpackChromium(into: string): string {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const script =
    'const m = await import(process.argv[1]); const c = m.default.default ?? m.default; console.log(await c.executablePath());';
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, entry], {
    env: { ...process.env, TMPDIR: into, HOME: into },
    encoding: 'utf8',
    timeout: STEP_MS,
  });
  if (run.status !== 0) throw new Error(`unpacking Chromium failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** Starts Chromium on a free DevTools port and resolves with its WebSocket URL. */
function startChromium(executable: string): Promise<string> {
  const home = join(dir, 'home');
  mkdirSync(home);
  const child = spawn(
    executable,
    [
      ...FLAGS,
      `--user-data-dir=${join(dir, 'profile')}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    {
      // Its own process group, so that afterAll kills it with every process it started.
      detached: true,
      env: { ...process.env, HOME: home, TMPDIR: dir, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  chromium = child;
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${stderr}`)), STEP_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited with ${code}: ${stderr}`));
    });
  });
}

/** Calls a function of the page's API (page.ts) with JSON arguments. */
function call<K extends keyof PageApi>(
  name: K,
  ...args: Parameters<PageApi[K]>
): Promise<Awaited<ReturnType<PageApi[K]>>> {
  return page.evaluate(
    (n, a) =>
      (
        (globalThis as unknown as { tensorops: Record<string, (...x: unknown[]) => unknown> })
          .tensorops[n] as (...x: unknown[]) => unknown
      )(...a),
    name,
    args as unknown[],
  ) as Promise<Awaited<ReturnType<PageApi[K]>>>;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

function tensorOf(e: ExpectedTensor): Tensor {
  return {
    dtype: e.dtype as Tensor['dtype'],
    shape: e.shape,
    data: Buffer.from(e.b64 ?? '', 'base64'),
  };
}

async function nodeGather(path: string, name: string | undefined, rows: number[]): Promise<string> {
  const f = await openTensorFile(path);
  try {
    const out = gatherFromFile(f, f.get(name), tensorFrom('int32', [rows.length], rows));
    return b64((await collectStream(out)).data);
  } finally {
    await f.close();
  }
}

let started = 0;

beforeAll(async () => {
  started = performance.now();
  dir = mkdtempSync(join(tmpdir(), 'tensorops-browser-'));
  const bundle = await build({
    entryPoints: [join(HERE, 'browser/page.ts')],
    metafile: true,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    outfile: join(dir, 'page.js'),
    logLevel: 'silent',
  });
  bundled = Object.keys(bundle.metafile.inputs);
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><input type="file" multiple><script type="module" src="page.js"></script>',
  );
  table = new Uint8Array(ROWS * ROW_BYTES);
  for (let i = 0; i < table.length; i++) table[i] = (i * 2654435761) >>> 24;
  writeFileSync(
    join(dir, 'table.safetensors'),
    encodeSafetensors([
      { name: 'embed', tensor: { dtype: 'float32', shape: [ROWS, 256], data: table } },
    ]),
  );
  copyFileSync(join(NPZ_DIR, 'savez.npz'), join(dir, 'savez.npz'));
  mkdirSync(join(dir, 'sharded'));
  copyShardedCheckpoint(join(dir, 'sharded'));
  server = await serveFolder(dir);
  const endpoint = await startChromium(unpackChromium(dir));
  browser = await puppeteer.connect({ browserWSEndpoint: endpoint, protocolTimeout: STEP_MS });
  page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => 'tensorops' in globalThis);
  const input = await page.$('input[type=file]');
  await input?.uploadFile(
    join(CLI_FIXTURES, 'data.npy'),
    join(NPZ_DIR, 'savez-compressed.npz'),
    join(NPZ_DIR, 'deflate-bomb.npz'),
    join(NPZ_DIR, 'crc-deflate.npz'),
  );
}, 3 * STEP_MS);

afterAll(async () => {
  await browser?.disconnect().catch(() => {});
  if (chromium?.pid !== undefined && chromium.exitCode === null) {
    const exited = new Promise((resolve) => chromium?.once('exit', resolve));
    process.kill(-chromium.pid, 'SIGKILL');
    await exited;
  }
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  console.log(`browser test: ${Math.round(performance.now() - started)} ms in all`);
});

describe('@tensorops/io in headless Chromium', () => {
  it('runs in Chromium', async () => {
    const version = await browser?.version();
    console.log(`browser test: ${version}`);
    expect(version).toMatch(/^HeadlessChrome\/\d+/);
  });

  it('bundles the main entry for the browser (esbuild would fail on a node: import) without the Node code', () => {
    expect(bundled.some((path) => /(^|\/)src\/file\//.test(path))).toBe(true);
    expect(bundled.filter((path) => /(^|\/)src\/node\/|yauzl|yazl/.test(path))).toEqual([]);
  });

  it('gathers rows from a File chosen in the page, as numpy does', async () => {
    const got = await call('gatherFile', 0, null, [2, 0, -3]);
    const golden = await readTensorFile(join(CLI_FIXTURES, 'take_axis0.npy'));
    expect(got.path).toBe('data.npy');
    expect(got.mode).toBe('ranged');
    expect(got.shape).toEqual(golden.shape);
    // -0.0, a NaN payload, a signalling NaN and -inf among them: the bits, not the values.
    expect(got.b64).toBe(b64(golden.data));
  });

  it("reads every member of numpy's savez_compressed .npz from a File, and gathers from one", async () => {
    const expected = npzManifest.valid.find((v) => v.file === 'savez-compressed.npz');
    expect(expected?.compression).toBe('deflate');
    const got = await call('readAll', 1);
    expect(got).toEqual(
      expected?.tensors.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape, b64: t.b64 })),
    );
    const ints = expected?.tensors.find((t) => t.name === 'ints') as ExpectedTensor;
    const rows = [2, 0, 2, -2];
    const gathered = await call('gatherFile', 1, 'ints', rows);
    expect(gathered.mode).toBe('loaded');
    expect(gathered.b64).toBe(b64(gather(tensorOf(ints), tensorFrom('int32', [4], rows)).data));
  });

  it('refuses a deflate bomb and a CRC mismatch with the errors Node gives', async () => {
    for (const [index, file] of [
      [2, 'deflate-bomb.npz'],
      [3, 'crc-deflate.npz'],
    ] as const) {
      const expected = npzManifest.invalid.find((v) => v.file === file);
      const message = await call('readError', index);
      expect(message).toContain(expected?.includes);
      expect(message.startsWith(`${file}: `)).toBe(true);
    }
  });

  it('gathers rows from a URL on 127.0.0.1 with one request for the header and one per row', async () => {
    const rows = [4000, 300, 1500, 300, 2048, 1017];
    const distinct = new Set(rows).size;
    const before = server.requests.length;
    const sentBefore = bytesSent(server);
    const got = await call('gatherUrl', `${server.url}/table.safetensors`, 'embed', rows);
    const requests = server.requests.slice(before);
    const bytes = bytesSent(server) - sentBefore;
    console.log(
      `browser test: URL gather of ${rows.length} rows (${distinct} distinct, ${distinct * ROW_BYTES} bytes) from a ${table.length}-byte tensor: ${requests.length} requests, ${bytes} bytes`,
    );
    expect(got.mode).toBe('ranged');
    expect(got.b64).toBe(await nodeGather(join(dir, 'table.safetensors'), 'embed', rows));
    expect(requests.map((r) => r.path)).toEqual(Array(requests.length).fill('/table.safetensors'));
    expect(requests).toHaveLength(1 + distinct);
    expect(bytes).toBe(65536 + distinct * ROW_BYTES);
    for (const r of requests.slice(1)) expect(r.headers['if-range']).toBeDefined();
  });

  it("resolves relative URLs against the document's base, shards beside their index", async () => {
    const rows = [7, 4095, 0];
    const expected = await nodeGather(join(dir, 'table.safetensors'), 'embed', rows);
    for (const url of [
      '/table.safetensors',
      'table.safetensors',
      './sharded/../table.safetensors',
    ]) {
      const before = server.requests.length;
      const got = await call('gatherUrl', url, 'embed', rows);
      expect(got.b64, url).toBe(expected);
      expect(server.requests.slice(before).map((r) => r.path)[0], url).toBe('/table.safetensors');
    }
    const name = 'model.embed_tokens.weight';
    const sharded = await call('gatherUrl', 'sharded/model.safetensors.index.json', name, [1, 62]);
    const golden = checkpointsManifest.tensors.find((t) => t.name === name) as ExpectedTensor;
    expect(sharded.b64).toBe(b64(gather(tensorOf(golden), tensorFrom('int32', [2], [1, 62])).data));
  });

  it('gathers from a stored .npz and a sharded checkpoint at URLs', async () => {
    const npz = await call('gatherUrl', `${server.url}/savez.npz`, 'big_endian', [4, 0, 2]);
    expect(npz.mode).toBe('ranged');
    expect(npz.b64).toBe(await nodeGather(join(dir, 'savez.npz'), 'big_endian', [4, 0, 2]));
    const name = 'model.embed_tokens.weight';
    const url = `${server.url}/sharded/model.safetensors.index.json`;
    const sharded = await call('gatherUrl', url, name, [63, 0, 7]);
    const golden = checkpointsManifest.tensors.find((t) => t.name === name) as ExpectedTensor;
    expect(sharded.b64).toBe(
      b64(gather(tensorOf(golden), tensorFrom('int32', [3], [63, 0, 7])).data),
    );
  });
});
