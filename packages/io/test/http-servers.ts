// Real HTTP servers on 127.0.0.1 for the remote-reading tests: files served by `send` (the static
// file server behind Express: Range, ETag, Last-Modified, If-Range, If-Match,
// If-Unmodified-Since), with faults injected around it (redirects, to another server or in a
// loop; bodies dripped byte by byte). Every request, its headers and body bytes are recorded.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import send from 'send';
import { afterEach } from 'vitest';

export interface SeenRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  status: number;
  /** Body bytes sent. */
  bytes: number;
}

export interface Faults {
  /** Serve whole files: the Range header is dropped before `send` sees it. */
  readonly ignoreRange?: boolean;
  /** The first n requests after the first answer this status (e.g. 503) instead. */
  readonly failNext?: { readonly count: number; readonly status: number };
  /** The first n requests after the first cut the connection after `after` body bytes. */
  readonly dropNext?: { readonly count: number; readonly after: number };
  /** Wait this long before answering each request. */
  readonly delayMs?: number;
  /** After the first request, answer with headers and then send nothing. */
  readonly stall?: boolean;
  /** Answer 401 unless the request carries this Authorization value. */
  readonly authorization?: string;
  /** Redirect to the Location this gives for the request's URL (path and query), if any. */
  readonly redirect?: (url: string) => string | undefined;
  /** The status of those redirects (default 302). */
  readonly redirectStatus?: number;
  /** Send each body one byte at a time, this many ms apart. */
  readonly dripMs?: number;
}

export interface TestServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** Most requests in flight at once. */
  readonly maxInFlight: number;
  faults: Faults;
  close(): Promise<void>;
}

/** Body bytes sent so far across all requests. */
export function bytesSent(server: TestServer): number {
  return server.requests.reduce((n, r) => n + r.bytes, 0);
}

export async function serveFolder(root: string, faults: Faults = {}): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const state = { faults };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const seen: SeenRequest = { path: req.url ?? '', headers: req.headers, status: 0, bytes: 0 };
    requests.push(seen);
    const index = requests.length - 1;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const f = state.faults;
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    const count = (chunk: unknown): boolean => {
      if (chunk === undefined || typeof chunk === 'function') return true;
      const length =
        typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length;
      const drop = f.dropNext !== undefined && index >= 1 && index <= f.dropNext.count;
      if (drop && seen.bytes + length > (f.dropNext as { after: number }).after) {
        const keep = Math.max(0, (f.dropNext as { after: number }).after - seen.bytes);
        write((chunk as Uint8Array).subarray(0, keep));
        seen.bytes += keep;
        res.socket?.destroy();
        return false;
      }
      seen.bytes += length;
      return true;
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) =>
      count(chunk) ? write(chunk as Uint8Array, ...(rest as [])) : false) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (!count(chunk)) return res;
      return end(chunk as Uint8Array, ...(rest as []));
    }) as typeof res.end;
    res.on('close', () => {
      inFlight--;
      seen.status = res.statusCode;
    });
    const answer = (): void => {
      const location = f.redirect?.(req.url ?? '/');
      if (location !== undefined) {
        res.writeHead(f.redirectStatus ?? 302, { Location: location });
        res.end();
        return;
      }
      if (f.authorization !== undefined && req.headers.authorization !== f.authorization) {
        res.statusCode = 401;
        res.end('unauthorized');
        return;
      }
      if (f.failNext !== undefined && index >= 1 && index <= f.failNext.count) {
        res.statusCode = f.failNext.status;
        res.setHeader('Retry-After', '0');
        res.end('try again');
        return;
      }
      if (f.stall === true && index >= 1) {
        res.writeHead(206, { 'Content-Range': 'bytes 0-0/1' });
        res.flushHeaders();
        return;
      }
      if (f.ignoreRange === true) delete req.headers.range;
      if (f.dripMs !== undefined) drip(res, f.dripMs);
      send(req, decodeURIComponent((req.url ?? '/').split('?')[0] as string), { root }).pipe(res);
    };
    if (f.delayMs !== undefined) setTimeout(answer, f.delayMs);
    else answer();
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    get faults() {
      return state.faults;
    },
    set faults(value: Faults) {
      state.faults = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Makes `res` send its body one byte at a time, `ms` apart, until the client goes away. */
function drip(res: ServerResponse, ms: number): void {
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  const queue: number[] = [];
  let ending = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pump = (): void => {
    timer = undefined;
    const byte = queue.shift();
    if (byte !== undefined) write(Uint8Array.of(byte));
    if (queue.length > 0) timer = setTimeout(pump, ms);
    else if (ending) end();
  };
  const later = (): void => {
    timer ??= setTimeout(pump, ms);
  };
  const take = (chunk: unknown): void => {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) {
      for (const byte of Buffer.from(chunk)) queue.push(byte);
    }
  };
  res.write = ((chunk: unknown) => {
    take(chunk);
    later();
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown) => {
    take(chunk);
    ending = true;
    later();
    return res;
  }) as typeof res.end;
  res.on('close', () => clearTimeout(timer));
}

/**
 * For the tests of the describe block it is called in: serves a folder (as serveFolder) and
 * closes that server after the test.
 */
export function serveFolderPerTest(): (root: string, faults?: Faults) => Promise<TestServer> {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (root, faults) => {
    server = await serveFolder(root, faults);
    return server;
  };
}
