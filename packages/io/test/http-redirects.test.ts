// Redirects over HTTP, against two real servers on 127.0.0.1 (http-servers.ts): the caller's
// headers reach the origin of the URL the caller gave and no other, the read's own headers (Range,
// the conditional ones) go on every hop, and what no later try can change fails at once.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeSafetensors } from '../src/index.js';
import { collectStream, gatherFromFile, openTensorFile } from '../src/node/index.js';
import type { HttpEvent } from '../src/remote/http-source.js';
import { MAX_REDIRECTS } from '../src/remote/redirects.js';
import { expectRejection } from './helpers.js';
import { serveFolder, type TestServer } from './http-servers.js';

const ROWS = 512;
const ROW_BYTES = 64 * 4;
const KEY = 'k3y-s3cr3t';
const SIGNATURE = 's1gnature-s3cr3t';

let dir: string;
let table: Uint8Array;
/** The server the caller names; `cdn` is another origin it may redirect to. */
let origin: TestServer;
let cdn: TestServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-redirects-'));
  table = new Uint8Array(ROWS * ROW_BYTES);
  for (let i = 0; i < table.length; i++) table[i] = (i * 2654435761) >>> 24;
  writeFileSync(
    join(dir, 'table.safetensors'),
    encodeSafetensors([
      { name: 'embed', tensor: { dtype: 'float32', shape: [ROWS, 64], data: table } },
    ]),
  );
  origin = await serveFolder(dir);
  cdn = await serveFolder(dir);
});

afterEach(async () => {
  await origin.close();
  await cdn.close();
  rmSync(dir, { recursive: true, force: true });
});

const callerHeaders = { Authorization: `Bearer ${KEY}`, 'X-Api-Key': KEY, Cookie: `k=${KEY}` };
const rowsOf = (rows: number[]): Buffer =>
  Buffer.concat(rows.map((r) => table.subarray(r * ROW_BYTES, (r + 1) * ROW_BYTES)));

/** Opens `url` with the caller's headers and gathers `rows`, recording every request event. */
async function gatherRows(url: string, rows: number[], events: HttpEvent[] = []): Promise<Buffer> {
  const f = await openTensorFile(url, {
    http: { headers: callerHeaders, retryMs: 5000, onRequest: (e) => events.push(e) },
  });
  try {
    const out = gatherFromFile(f, f.get('embed'), tensorFrom('int32', [rows.length], rows));
    return Buffer.from((await collectStream(out)).data);
  } finally {
    await f.close();
  }
}

describe('redirects', () => {
  for (const status of [302, 307]) {
    it(`a ${status} to another origin delivers none of the caller's headers there`, async () => {
      // Hugging Face style: the caller's server answers with a signed URL on a CDN.
      origin.faults = {
        redirect: (url) => `${cdn.url.replace('127.0.0.1', 'localhost')}${url}?sig=${SIGNATURE}`,
        redirectStatus: status,
      };
      const events: HttpEvent[] = [];
      const rows = [3, 300, 500];
      expect(
        (await gatherRows(`${origin.url}/table.safetensors`, rows, events)).equals(rowsOf(rows)),
      ).toBe(true);
      expect(cdn.requests.length).toBeGreaterThanOrEqual(2);
      for (const r of cdn.requests) {
        expect(r.headers.authorization).toBeUndefined();
        expect(r.headers['x-api-key']).toBeUndefined();
        expect(r.headers.cookie).toBeUndefined();
        expect(r.headers.range).toMatch(/^bytes=\d+-\d+$/);
      }
      // The read's own headers go on: every request after the first is conditional there too.
      for (const r of cdn.requests.slice(1)) {
        expect(r.headers['if-unmodified-since']).toBeDefined();
      }
      // Every request starts again from the caller's URL, with the caller's headers.
      expect(origin.requests).toHaveLength(cdn.requests.length);
      for (const r of origin.requests) expect(r.headers['x-api-key']).toBe(KEY);
      expect(JSON.stringify(events)).not.toContain('s3cr3t');
      expect(events.map((e) => e.status)).toContain(status);
      expect(events.some((e) => e.url.startsWith('http://localhost:'))).toBe(true);
    });
  }

  it('keeps the caller headers on a redirect within the same origin', async () => {
    origin.faults = {
      redirect: (url) => (url.startsWith('/old/') ? url.slice('/old'.length) : undefined),
      authorization: `Bearer ${KEY}`,
    };
    const rows = [1, 2];
    expect(
      (await gatherRows(`${origin.url}/old/table.safetensors`, rows)).equals(rowsOf(rows)),
    ).toBe(true);
    expect(origin.requests.filter((r) => r.path === '/table.safetensors').length).toBeGreaterThan(
      0,
    );
    for (const r of origin.requests) expect(r.headers['x-api-key']).toBe(KEY);
  });

  it('fails at once on a redirect loop, with one request per URL in it', async () => {
    origin.faults = { redirect: (url) => url };
    let e = await expectRejection(gatherRows(`${origin.url}/table.safetensors`, [1]));
    expect(e.code).toBe('E_IO');
    expect(e.message).toBe(`${origin.url}/table.safetensors: redirects in a loop`);
    expect(origin.requests).toHaveLength(1);
    origin.requests.length = 0;
    origin.faults = {
      redirect: (url) => (url === '/a.safetensors' ? '/b.safetensors' : '/a.safetensors'),
    };
    e = await expectRejection(gatherRows(`${origin.url}/a.safetensors`, [1]));
    expect(e.message).toBe(`${origin.url}/a.safetensors: redirects in a loop`);
    expect(origin.requests.map((r) => r.path)).toEqual(['/a.safetensors', '/b.safetensors']);
  });

  it(`fails at once after ${MAX_REDIRECTS} redirects, and on one to a file: URL`, async () => {
    origin.faults = { redirect: (url) => `/${Number(url.slice(1)) + 1}` };
    let e = await expectRejection(gatherRows(`${origin.url}/0`, [1]));
    expect(e.message).toBe(`${origin.url}/0: more than ${MAX_REDIRECTS} redirects`);
    expect(origin.requests).toHaveLength(MAX_REDIRECTS);
    origin.requests.length = 0;
    origin.faults = { redirect: () => 'file:///nonexistent' };
    e = await expectRejection(gatherRows(`${origin.url}/table.safetensors`, [1]));
    expect(e.message).toBe(
      `${origin.url}/table.safetensors: redirected to a file: URL; only http: and https: are followed`,
    );
    expect(origin.requests).toHaveLength(1);
  });
});
