// http(s):// inputs from the command line, against real servers on 127.0.0.1. The CLI runs as a
// child process (asynchronously: the server lives in this process).

import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeNpy } from '@tensorops/io';
import { afterEach, describe, expect, it } from 'vitest';
import { copyShardedCheckpoint } from '../../../packages/io/test/format-fixtures.js';
import { serveFolder, type TestServer } from '../../../packages/io/test/http-servers.js';
import { BIN, REPO, tempDir } from './helpers.js';

const SECRET = 'Bearer s3cr3t-t0ken';
const manifest = JSON.parse(
  readFileSync(join(REPO, 'fixtures', 'checkpoints', 'manifest.json'), 'utf8'),
) as { tensors: { name: string; b64: string }[] };

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('close', (status) =>
      resolve({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }),
    );
  });
}

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
