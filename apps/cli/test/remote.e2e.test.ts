// http(s):// inputs from the command line, against real servers on 127.0.0.1. The CLI runs as a
// child process (asynchronously: the server lives in this process). Requests are counted at the
// server; no timing is asserted: --timeout bounds a slow server, and a hang is killed (status null).

import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeNpy, encodeNpy } from '@tensorops/io';
import { afterEach, describe, expect, it } from 'vitest';
import { copyShardedCheckpoint } from '../../../packages/io/test/format-fixtures.js';
import {
  serveFolder,
  serveFolderPerTest,
  type TestServer,
} from '../../../packages/io/test/http-servers.js';
import { REPO, tempDir, tensoropsAsync } from './helpers.js';

const SECRET = 'Bearer s3cr3t-t0ken';
const manifest = JSON.parse(
  readFileSync(join(REPO, 'fixtures', 'checkpoints', 'manifest.json'), 'utf8'),
) as { tensors: { name: string; b64: string }[] };

const run = tensoropsAsync;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function checkpointServer(): Promise<TestServer> {
  const dir = tempDir();
  copyShardedCheckpoint(dir);
  return serveFolder(dir, { authorization: SECRET });
}

describe('http(s):// inputs', () => {
  it('inspects and gathers from a sharded checkpoint with a header whose value is never printed', async () => {
    server = await checkpointServer();
    const index = `${server.url}/model.safetensors.index.json`;
    const listed = await run(['inspect', index, '--json'], {
      TENSOROPS_HTTP_HEADERS: `Authorization: ${SECRET}`,
    });
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout.toString()).tensors).toHaveLength(7);
    // The index and the three shard headers: one request each.
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      '/model-00001-of-00003.safetensors',
      '/model-00002-of-00003.safetensors',
      '/model-00003-of-00003.safetensors',
      '/model.safetensors.index.json',
    ]);
    server.requests.length = 0;
    const out = join(tempDir(), 'rows.npy');
    const r = await run(
      [
        'gather',
        `${index}:lm_head.weight`,
        join(REPO, 'fixtures', 'cli', 'idx_axis0_i32.npy'),
        '-o',
        out,
        '--http-header',
        `Authorization: ${SECRET}`,
      ],
      { TENSOROPS_DEBUG: '1' },
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      `tensorops: http: GET ${server.url}/model-00003-of-00003.safetensors bytes=0-65535 -> 206`,
    );
    expect(r.stderr).not.toContain('s3cr3t');
    expect(server.requests.map((q) => q.path)).toEqual([
      '/model.safetensors.index.json',
      '/model-00003-of-00003.safetensors',
    ]);
    const src = Buffer.from(
      manifest.tensors.find((t) => t.name === 'lm_head.weight')?.b64 ?? '',
      'base64',
    );
    const want = Buffer.concat([2, 0, 61].map((i) => src.subarray(i * 32, i * 32 + 32)));
    expect(Buffer.from(decodeNpy(new Uint8Array(readFileSync(out))).data).equals(want)).toBe(true);
  });

  it('fails with one line, and no secret, when the server refuses or the header is malformed', async () => {
    server = await checkpointServer();
    const index = `${server.url}/model.safetensors.index.json?token=s3cr3t-t0ken`;
    const denied = await run(
      ['inspect', index, '--http-header', 'Authorization: Bearer wrong-s3cr3t'],
      {
        TENSOROPS_DEBUG: '1',
      },
    );
    expect(denied.status).toBe(1);
    expect(denied.stderr.split('\n')[1]).toBe(
      `tensorops: error: ${server.url}/model.safetensors.index.json?…: HTTP 401 Unauthorized (pass credentials with --http-header or TENSOROPS_HTTP_HEADERS)`,
    );
    expect(denied.stderr).not.toContain('s3cr3t');
    const bad = await run(['inspect', index, '--http-header', 's3cr3t-without-colon']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      "tensorops: error: --http-header #1 is not 'Name: value' (its value is not shown)\n",
    );
  });

  it('takes a file whole from a server that ignores Range only under --max-download', async () => {
    const dir = tempDir();
    copyFileSync(join(REPO, 'fixtures', 'cli', 'data.npy'), join(dir, 'data.npy'));
    server = await serveFolder(dir, { ignoreRange: true });
    const url = `${server.url}/data.npy`;
    const refused = await run(['inspect', url]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /^tensorops: error: http:\/\/127\.0\.0\.1:\d+\/data\.npy: the server ignores Range requests \(HTTP 200 to a ranged request\) and the file is \d+ bytes; allow downloading it whole with --max-download \d+ \(now 0\)\n$/,
    );
    const ok = await run(['inspect', url, '--max-download', '1000000']);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout.toString()).toContain(`${url}: npy, 1 tensor`);
  });
});

describe('--max-download sizes', () => {
  const serve = serveFolderPerTest();

  it('takes a byte count or a size: k, M, G count in 1000s, KiB, MiB, GiB in 1024s', async () => {
    const dir = tempDir();
    copyFileSync(join(REPO, 'fixtures', 'cli', 'data.npy'), join(dir, 'data.npy'));
    const size = statSync(join(dir, 'data.npy')).size;
    const server = await serve(dir, { ignoreRange: true });
    const url = `${server.url}/data.npy`;
    // Each size at the file's length is enough; one byte less is not.
    const sizes = (n: number): string[] => [
      `${n}`,
      `${n}B`,
      `${shifted(n, 3)}k`,
      `${shifted(n, 3)}KB`,
      `${shifted(n, 6)}MB`,
      `${shifted(n, 9)}G`,
      `${shifted(n, 10, 5)}KiB`,
      `${shifted(n, 20, 5)}mib`,
      `${shifted(n, 30, 5)}GiB`,
    ];
    for (const [enough, short] of zip(sizes(size), sizes(size - 1))) {
      const ok = await run(['inspect', url, '--max-download', enough]);
      expect([enough, ok.stderr, ok.status]).toEqual([enough, '', 0]);
      const refused = await run(['inspect', url, '--max-download', short]);
      expect([short, refused.status]).toEqual([short, 1]);
      expect(refused.stderr).toContain(`allow downloading it whole with --max-download ${size}`);
    }
    for (const bad of ['-1', '200XB', '1e3', '0x10', '1.5.2M', 'MB', `${2 ** 53}`]) {
      const r = await run(['inspect', url, '--max-download', bad]);
      expect(r.stderr).toBe(
        `tensorops: error: --max-download takes a byte count such as 1000000 or 200MB (k, M, G, T: powers of 1000; KiB, MiB, GiB, TiB: of 1024), got '${bad}'\n`,
      );
      expect(r.status).toBe(2);
    }
  });
});

/**
 * n / 10^places written out exactly; with `factor` 5, n / 2^places (n * 5^places / 10^places),
 * whose decimal expansion ends too.
 */
function shifted(n: number, places: number, factor = 1): string {
  const digits = (BigInt(n) * BigInt(factor) ** BigInt(places))
    .toString()
    .padStart(places + 1, '0');
  return `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

function zip<A, B>(a: readonly A[], b: readonly B[]): [A, B][] {
  return a.map((x, i) => [x, b[i] as B]);
}

/** A float32 [ROWS, 128] .npy, larger than the first request's 64 KiB, with its bytes. */
const ROWS = 256;
function largeNpyServer(): Promise<TestServer> {
  const dir = tempDir();
  const data = new Float32Array(ROWS * 128).map((_, i) => i);
  const t = { dtype: 'float32', shape: [ROWS, 128], data: new Uint8Array(data.buffer) } as const;
  writeFileSync(join(dir, 'large.npy'), encodeNpy(t));
  return serveFolder(dir);
}

describe('deadlines and retries of http(s):// inputs', () => {
  it('ends a server that drips bytes at --timeout (or TENSOROPS_TIMEOUT), with one line', async () => {
    const dir = tempDir();
    copyFileSync(join(REPO, 'fixtures', 'cli', 'data.npy'), join(dir, 'data.npy'));
    server = await serveFolder(dir, { dripMs: 200 });
    const url = `${server.url}/data.npy`;
    for (const [flags, env] of [
      [['--timeout', '2'], {}],
      [[], { TENSOROPS_TIMEOUT: '1.5' }],
    ] as const) {
      server.requests.length = 0;
      const r = await run(['gather', url, '--indices', '0', ...flags], env);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        `tensorops: error: ${url}: the time allowed for all requests ran out; --timeout allows more time\n`,
      );
      expect(r.stdout.length).toBe(0);
      // One request, cut part-way: the whole body would take over a minute.
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.bytes).toBeLessThan(368);
    }
  });

  it('fails at once, with one line, on what no retry can change', async () => {
    const dir = tempDir();
    server = await serveFolder(dir, { redirect: (u) => u });
    const loop = await run(['inspect', `${server.url}/data.npy`]);
    expect(loop.status).toBe(1);
    expect(loop.stderr).toBe(`tensorops: error: ${server.url}/data.npy: redirects in a loop\n`);
    expect(server.requests).toHaveLength(1);
    server.requests.length = 0;
    server.faults = { redirect: () => 'file:///nonexistent' };
    const file = await run(['inspect', `${server.url}/data.npy`]);
    expect(file.stderr).toBe(
      `tensorops: error: ${server.url}/data.npy: redirected to a file: URL; only http: and https: are followed\n`,
    );
    expect(server.requests).toHaveLength(1);
    const refusedUrl = `${server.url}/data.npy`;
    await server.close();
    server = undefined;
    const refused = await run(['inspect', refusedUrl]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      `tensorops: error: ${refusedUrl}: connection failed (ECONNREFUSED)\n`,
    );
  });

  it('retries a 503 and says so in one note, which -q silences', async () => {
    server = await largeNpyServer();
    const url = `${server.url}/large.npy`;
    for (const quiet of [false, true]) {
      server.requests.length = 0;
      server.faults = { failNext: { count: 1, status: 503 } };
      const r = await run([
        'gather',
        url,
        '--indices',
        `${ROWS - 1}`,
        '--json',
        ...(quiet ? ['-q'] : []),
      ]);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe(quiet ? '' : `tensorops: note: ${url}: HTTP 503; trying again\n`);
      const row = Array.from({ length: 128 }, (_, i) => (ROWS - 1) * 128 + i);
      // A lone index is a scalar: the row itself, not a batch of one.
      expect(JSON.parse(r.stdout.toString()).data).toEqual(row);
      expect(server.requests.map((q) => q.status)).toEqual([206, 503, 206]);
    }
  });

  it('takes --timeout and TENSOROPS_TIMEOUT as seconds > 0, else exit 2', async () => {
    for (const [flags, env, shown] of [
      [['--timeout', '0'], {}, "--timeout takes a number of seconds > 0, got '0'"],
      [['--timeout', 'soon'], {}, "--timeout takes a number of seconds > 0, got 'soon'"],
      [
        [],
        { TENSOROPS_TIMEOUT: '-1' },
        "TENSOROPS_TIMEOUT takes a number of seconds > 0, got '-1'",
      ],
    ] as const) {
      const r = await run(['gather', 'http://127.0.0.1:9/x.npy', '--indices', '0', ...flags], env);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`tensorops: error: ${shown}\n`);
    }
  });
});
