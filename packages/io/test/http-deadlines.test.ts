// Deadlines, retries and the caller's secrets over HTTP, against real servers on 127.0.0.1
// (http-servers.ts): a body dripped byte by byte ends at the request's deadline or the caller's
// signal; only what a later try can change is retried; bad headers and a URL's user:password are
// handled before any request, and never echoed. No timing is asserted: every wait is bounded by
// the options given, and the test's own timeout catches a hang.

import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTensorFile } from '../src/node/index.js';
import {
  type HttpEvent,
  type HttpRetry,
  type HttpSourceOptions,
  openHttpSource,
} from '../src/remote/http-source.js';
import { expectRejection } from './helpers.js';
import { serveFolder, type TestServer } from './http-servers.js';

const SECRET = 'pa55-s3cr3t';
const NPY = join(import.meta.dirname, '../../../fixtures/cli/data.npy');

let dir: string;
let server: TestServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tensorops-deadlines-'));
  copyFileSync(NPY, join(dir, 'data.npy'));
  server = await serveFolder(dir);
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens and reads the whole tensor; every event and retry is recorded. The first request takes
 * the .npy header only, so the data is a second one.
 */
async function readAll(url: string, options: HttpSourceOptions = {}) {
  const events: HttpEvent[] = [];
  const retries: HttpRetry[] = [];
  const f = await openTensorFile(url, {
    http: {
      firstBytes: 128,
      ...options,
      onRequest: (e) => events.push(e),
      onRetry: (e) => retries.push(e),
    },
  });
  try {
    const t = await f.read(f.tensors[0] as never);
    return { data: Buffer.from(t.data), events, retries };
  } finally {
    await f.close();
  }
}

describe('deadlines', () => {
  it("ends a request whose body drips at the request's deadline, without a retry", async () => {
    server.faults = { dripMs: 50 };
    const e = await expectRejection(readAll(`${server.url}/data.npy`, { retryMs: 600 }));
    expect(e.code).toBe('E_IO');
    expect(e.message).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/data\.npy: no complete answer within 0\.6 s \(gave up after 1 try in [\d.]+ s; the retryMs option allows more time\)$/,
    );
    expect(server.requests).toHaveLength(1);
    // The body was cut part-way: it drips far longer than the deadline.
    expect(server.requests[0]?.bytes).toBeLessThan(200);
  });

  it("ends every request when the caller's signal aborts, and retries nothing after", async () => {
    server.faults = { dripMs: 50 };
    const e = await expectRejection(
      readAll(`${server.url}/data.npy`, { signal: AbortSignal.timeout(300) }),
    );
    expect(e.message).toBe(
      `${server.url}/data.npy: the time allowed for all requests ran out (the signal option)`,
    );
    expect(server.requests).toHaveLength(1);
    const cancelled = new AbortController();
    cancelled.abort();
    const stopped = await expectRejection(
      openHttpSource(`${server.url}/data.npy`, { signal: cancelled.signal }),
    );
    expect(stopped.message).toBe(
      `${server.url}/data.npy: the read was cancelled (the signal option)`,
    );
  });
});

describe('retries', () => {
  it('fails at once on a refused connection, with one try', async () => {
    const url = `${server.url}/data.npy`;
    await server.close();
    const events: HttpEvent[] = [];
    let retries = 0;
    const e = await expectRejection(
      openHttpSource(url, { onRequest: (ev) => events.push(ev), onRetry: () => retries++ }),
    );
    expect(e.message).toBe(`${url}: connection failed (ECONNREFUSED)`);
    expect(events.map((ev) => ev.status)).toEqual([0]);
    expect(retries).toBe(0);
    server = await serveFolder(dir);
  });

  it('fails at once on a port fetch refuses to use, naming the URL as printed', async () => {
    const e = await expectRejection(openHttpSource(`http://me:${SECRET}@127.0.0.1:9/x.npy?t=1`));
    expect(e.message).toBe('http://127.0.0.1:9/x.npy?…: connection failed (bad port)');
  });

  it('retries a 503 once, and says why before it does', async () => {
    server.faults = { failNext: { count: 1, status: 503 } };
    const r = await readAll(`${server.url}/data.npy`);
    expect(server.requests.map((q) => q.status)).toEqual([206, 503, 206]);
    expect(r.retries).toEqual([
      { url: `${server.url}/data.npy`, reason: 'HTTP 503', attempt: 1, waitMs: expect.any(Number) },
    ]);
  });

  it('retries a 408, but not a 404 or a 403', async () => {
    server.faults = { failNext: { count: 1, status: 408 } };
    await readAll(`${server.url}/data.npy`);
    expect(server.requests.map((q) => q.status)).toEqual([206, 408, 206]);
    for (const status of [404, 403]) {
      server.requests.length = 0;
      server.faults = { failNext: { count: 1, status } };
      const e = await expectRejection(readAll(`${server.url}/data.npy`));
      expect(e.message).toContain(`HTTP ${status}`);
      expect(server.requests.map((q) => q.status)).toEqual([206, status]);
    }
  });
});

describe("the caller's secrets", () => {
  it('refuses a header HTTP cannot carry before any request, naming it and not its value', async () => {
    for (const [name, value] of [
      ['Authorization', `Bearer ${SECRET}\u0000`],
      ['Authorization', `Bearer ${SECRET}\rX`],
      ['X-Key', `${SECRET}\nX-Other: 1`],
      ['X-Key', `${SECRET}\u20ac`],
    ] as const) {
      const e = await expectRejection(
        openHttpSource(`${server.url}/data.npy`, { headers: { [name]: value } }),
      );
      expect(e.code).toBe('E_USAGE');
      expect(e.message).toContain(`header '${name}'`);
      expect(e.message).not.toContain(SECRET);
    }
    const e = await expectRejection(
      openHttpSource(`${server.url}/data.npy`, { headers: { [`X-${SECRET}\r`]: 'v' } }),
    );
    expect(e.message).toBe(
      'headers option: the header name is not an HTTP token (the name is not shown)',
    );
    expect(server.requests).toHaveLength(0);
  });

  it("sends a URL's user:password as Basic authorization and never shows it", async () => {
    server.faults = {
      authorization: `Basic ${Buffer.from(`me:${SECRET}é`).toString('base64')}`,
    };
    const url = `http://me:${SECRET}%C3%A9@${server.url.slice('http://'.length)}/data.npy?t=${SECRET}`;
    const r = await readAll(url);
    expect(r.data.length).toBeGreaterThan(0);
    expect(JSON.stringify(r.events)).not.toContain(SECRET);
    const source = await openHttpSource(url);
    expect(`${source.url} ${source.label}`).not.toContain(`:${SECRET}`);
    expect(source.label).toBe(`${server.url}/data.npy?…`);
    // Refused: the message names the URL without user, password or query.
    const e = await expectRejection(openHttpSource(url.replace('me:', 'you:')));
    expect(e.message).toBe(
      `${server.url}/data.npy?…: HTTP 401 Unauthorized (send credentials in the headers option)`,
    );
    // Not even a URL that does not parse is echoed.
    const bad = await expectRejection(
      openTensorFile(`http://me:${SECRET}@127.0.0.1:99999/data.npy`),
    );
    expect(bad.message).not.toContain(SECRET);
  });
});
