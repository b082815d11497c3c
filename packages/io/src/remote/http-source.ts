// A file over HTTP(S), read by byte ranges with the runtime's fetch (undici in Node, the browser's
// own elsewhere). No Node API: the browser build uses the same code.
//
// Rules:
// - The first request asks for the first `firstBytes` bytes; its answer gives the size
//   (Content-Range) and the validators (ETag, Last-Modified), and is kept: a header that fits is
//   read with that one request, a longer one with one more.
// - Every later request carries If-Match / If-Range (strong ETag) or If-Range /
//   If-Unmodified-Since (Last-Modified), and its answer must be a 206 for exactly the range asked,
//   with the same size and validators: a file that changes between requests fails loudly instead
//   of mixing two versions.
// - Connection failures, bodies cut short, 429 and 5xx are retried with exponential backoff
//   (Retry-After honoured) until `retryMs` has passed since the request was first tried; a request
//   that receives nothing for `idleMs` is abandoned and retried.
// - A 200 to a ranged request means the server ignores Range: the file is taken whole only when it
//   is at most `maxDownload` bytes, else that is an error.
// - Header values (Authorization...) are sent, never printed: messages and `onRequest` events name
//   the URL without its query string or credentials, and header names at most.

import { TensorOpsError } from '@tensorops/core';
import { coalesceReads, type RangeRead } from './coalesce.js';

export interface HttpEvent {
  /** The URL as printed: no query string, no user:password. */
  readonly url: string;
  /** `bytes=a-b` as sent. */
  readonly range: string;
  /** 1 for the first try. */
  readonly attempt: number;
  /** HTTP status, or 0 when the connection failed. */
  readonly status: number;
  /** Body bytes received. */
  readonly bytes: number;
}

export interface HttpSourceOptions {
  /** Extra request headers (Authorization, cookies): sent with every request, never printed. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Largest file taken whole from a server that ignores Range (default 0: none). */
  readonly maxDownload?: number;
  /** Requests in flight at once in {@link HttpSource.readMany} (default 8). */
  readonly concurrency?: number;
  /** Time a request may take with its retries, from its first try, in ms (default 60 000). */
  readonly retryMs?: number;
  /** A try that receives no byte for this long is abandoned, in ms (default 30 000). */
  readonly idleMs?: number;
  /** Size of the first request, which holds most headers whole (default 64 KiB). */
  readonly firstBytes?: number;
  /** Largest single request when reads are merged (default 16 MiB). */
  readonly maxRequestBytes?: number;
  /** Called after every try (counting, debug logs); it sees no header values. */
  readonly onRequest?: (event: HttpEvent) => void;
}

const DEFAULTS = {
  maxDownload: 0,
  concurrency: 8,
  retryMs: 60_000,
  idleMs: 30_000,
  firstBytes: 64 << 10,
  maxRequestBytes: 16 << 20,
};

/** True for `http://` and `https://` references. */
export function isHttpUrl(ref: string): boolean {
  return /^https?:\/\//i.test(ref);
}

/** A URL as messages show it: without credentials and query string (which may hold tokens). */
export function printableUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    const query = u.search !== '' ? '?…' : '';
    u.search = '';
    u.hash = '';
    return `${u.href}${query}`;
  } catch {
    return url.replace(/[?#].*$/s, '');
  }
}

/** Why a try failed in a way worth another try. */
class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

function ioError(message: string, cause?: unknown): TensorOpsError {
  return new TensorOpsError('E_IO', message, cause === undefined ? undefined : { cause });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** `bytes a-b/total` -> start, end (exclusive), total; the unsatisfied form (416) -> total only. */
function parseContentRange(
  header: string | null,
): { start?: number; end?: number; total: number } | undefined {
  const m = /^bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+)\s*$/i.exec(header ?? '');
  if (m === null) return undefined;
  const total = Number(m[3]);
  if (m[1] === undefined) return { total };
  return { start: Number(m[1]), end: Number(m[2]) + 1, total };
}

function isStrongEtag(etag: string | null): etag is string {
  return etag !== null && !etag.startsWith('W/');
}

/** A file on an HTTP(S) server, as a random-access byte source. Open with {@link openHttpSource}. */
export class HttpSource {
  readonly fd = undefined;
  /** The whole file, when a server that ignores Range sent it (at most `maxDownload` bytes). */
  bytes: Uint8Array | undefined = undefined;
  size = 0;
  /** Requests made (tries included) and body bytes received, for reports and tests. */
  readonly stats = { requests: 0, bytes: 0 };
  private prefix: Uint8Array = new Uint8Array(0);
  private etag: string | null = null;
  private lastModified: string | null = null;
  private readonly options: typeof DEFAULTS & HttpSourceOptions;

  constructor(
    readonly url: string,
    options: HttpSourceOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.label = printableUrl(url);
  }

  readonly label: string;

  /** The first request: size, validators, and the first bytes (kept for the header reads). */
  async open(): Promise<this> {
    const want = this.options.firstBytes;
    const { status, body, headers } = await this.fetchWithRetry(0, want, true);
    if (status === 200) {
      this.bytes = body;
      this.prefix = body;
      this.size = body.length;
      return this;
    }
    const range = parseContentRange(headers.get('content-range'));
    this.size = range?.total ?? 0;
    this.prefix = body;
    this.etag = headers.get('etag');
    this.lastModified = headers.get('last-modified');
    return this;
  }

  /** Fills `target` from `position` on; returns the bytes read (fewer only at the end). */
  async read(target: Uint8Array, position: number): Promise<number> {
    const length = Math.max(0, Math.min(target.length, this.size - position));
    if (length === 0) return 0;
    await this.readMany([{ position, target: target.subarray(0, length) }]);
    return length;
  }

  /**
   * Fills every read (each must lie within the file): reads inside the first bytes come from
   * them, the rest are merged into as few requests as keep the overread within 10%, run
   * `concurrency` at a time.
   */
  async readMany(reads: readonly RangeRead[]): Promise<void> {
    const remote: RangeRead[] = [];
    for (const r of reads) {
      const end = r.position + r.target.length;
      if (end > this.size) {
        throw ioError(`${this.label}: read past the end: bytes up to ${end} of ${this.size}`);
      }
      if (end <= this.prefix.length) r.target.set(this.prefix.subarray(r.position, end));
      else remote.push(r);
    }
    const requests = coalesceReads(remote, this.options.maxRequestBytes);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const q = requests[next++] as (typeof requests)[number];
        const { body } = await this.fetchWithRetry(q.start, q.end - q.start, false);
        for (const r of q.reads) {
          const at = r.position - q.start;
          r.target.set(body.subarray(at, at + r.target.length));
        }
      }
    };
    const workers = Math.min(this.options.concurrency, requests.length);
    await Promise.all(Array.from({ length: workers }, worker));
  }

  async close(): Promise<void> {}

  private conditionalHeaders(): Record<string, string> {
    if (isStrongEtag(this.etag)) return { 'If-Match': this.etag, 'If-Range': this.etag };
    if (this.lastModified !== null) {
      return { 'If-Range': this.lastModified, 'If-Unmodified-Since': this.lastModified };
    }
    return {};
  }

  private async fetchWithRetry(
    start: number,
    length: number,
    first: boolean,
  ): Promise<{ status: number; body: Uint8Array; headers: Headers }> {
    const deadline = Date.now() + this.options.retryMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tryOnce(start, length, first, attempt);
      } catch (error) {
        if (!(error instanceof Transient)) throw error;
        const backoff = Math.min(2000, 100 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
        const wait = Math.max(backoff, error.retryAfterMs ?? 0);
        if (Date.now() + wait > deadline) {
          throw ioError(
            `${this.label}: ${error.message} (gave up after ${attempt} ${attempt === 1 ? 'try' : 'tries'} in ${Math.round((Date.now() - deadline + this.options.retryMs) / 100) / 10} s)`,
          );
        }
        await sleep(wait);
      }
    }
  }

  private async tryOnce(
    start: number,
    length: number,
    first: boolean,
    attempt: number,
  ): Promise<{ status: number; body: Uint8Array; headers: Headers }> {
    const range = `bytes=${start}-${start + length - 1}`;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), this.options.idleMs);
    };
    let status = 0;
    let received = 0;
    idle();
    try {
      let res: Response;
      try {
        res = await fetch(this.url, {
          headers: {
            ...this.options.headers,
            Range: range,
            ...(first ? {} : this.conditionalHeaders()),
          },
          signal: controller.signal,
          redirect: 'follow',
        });
      } catch (cause) {
        throw new Transient(connectionFailure(cause, controller.signal.aborted));
      }
      status = res.status;
      const check = this.checkResponse(res, start, length, first);
      if (check !== undefined) {
        await res.body?.cancel().catch(() => {});
        throw check;
      }
      const expected = this.bodyLength(res);
      const body = new Uint8Array(expected);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          idle();
          if (received + value.length > body.length) {
            throw ioError(
              `${this.label}: the server sent more than the ${body.length} bytes of ${range}`,
            );
          }
          body.set(value, received);
          received += value.length;
        }
      } catch (cause) {
        await reader.cancel().catch(() => {});
        if (cause instanceof TensorOpsError) throw cause;
        throw new Transient(connectionFailure(cause, controller.signal.aborted));
      }
      if (received !== body.length) {
        throw new Transient(`the body of ${range} ended after ${received} of ${body.length} bytes`);
      }
      if (res.status === 200) this.size = body.length;
      return { status: res.status, body, headers: res.headers };
    } finally {
      clearTimeout(timer);
      this.stats.requests++;
      this.stats.bytes += received;
      this.options.onRequest?.({ url: this.label, range, attempt, status, bytes: received });
    }
  }

  /** The body length of a response {@link checkResponse} accepted. */
  private bodyLength(res: Response): number {
    if (res.status === 416) return 0;
    if (res.status === 200) return Number(res.headers.get('content-length'));
    const range = parseContentRange(res.headers.get('content-range'));
    return (range?.end as number) - (range?.start as number);
  }

  /** An error for a response that is not the range asked for, or undefined when it is. */
  private checkResponse(
    res: Response,
    start: number,
    length: number,
    first: boolean,
  ): Error | undefined {
    const s = res.status;
    if (s === 429 || s >= 500) {
      return new Transient(`HTTP ${s}`, retryAfter(res.headers.get('retry-after')));
    }
    const changed = ioError(
      `${this.label}: the file changed on the server while it was being read (HTTP ${s} to a request conditional on the first response's ${isStrongEtag(this.etag) ? 'ETag' : 'Last-Modified'}); run the command again`,
    );
    if (s === 412) return changed;
    if (s === 200) {
      if (!first && Object.keys(this.conditionalHeaders()).length > 0) return changed;
      const declared = Number(res.headers.get('content-length') ?? Number.NaN);
      const max = this.options.maxDownload;
      // Without a Content-Length the body could be anything: only a declared size is taken.
      if (first && Number.isSafeInteger(declared) && declared <= max) return undefined;
      return ioError(
        `${this.label}: the server ignores Range requests (HTTP 200 to a ranged request)${Number.isSafeInteger(declared) ? ` and the file is ${declared} bytes` : ''}; allow downloading it whole with maxDownload: ${Number.isSafeInteger(declared) ? declared : 'BYTES'} (now ${max})`,
      );
    }
    if (s === 416 && first) {
      const total = parseContentRange(res.headers.get('content-range'))?.total;
      if (total === 0) return undefined;
    }
    if (s !== 206) {
      const hint = s === 401 || s === 403 ? ' (send credentials in the headers option)' : '';
      return ioError(`${this.label}: HTTP ${s} ${res.statusText}${hint}`);
    }
    const range = parseContentRange(res.headers.get('content-range'));
    if (range === undefined || range.start === undefined) {
      return ioError(
        `${this.label}: a 206 answer without a valid Content-Range (a server on another origin must expose it: Access-Control-Expose-Headers)`,
      );
    }
    const wantEnd = first ? Math.min(start + length, range.total) : start + length;
    if (!first && (range.total !== this.size || !this.sameValidators(res.headers))) return changed;
    if (range.start !== start || range.end !== wantEnd) {
      return ioError(
        `${this.label}: asked for bytes ${start}-${start + length - 1}, the server sent ${range.start}-${(range.end as number) - 1}`,
      );
    }
    return undefined;
  }

  private sameValidators(headers: Headers): boolean {
    const etag = headers.get('etag');
    const lastModified = headers.get('last-modified');
    return (
      (this.etag === null || etag === null || etag === this.etag) &&
      (this.lastModified === null || lastModified === null || lastModified === this.lastModified)
    );
  }
}

function connectionFailure(cause: unknown, timedOut: boolean): string {
  if (timedOut) return 'no data for too long';
  const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
  const what = inner?.code ?? inner?.message ?? (cause instanceof Error ? cause.message : 'failed');
  return `connection failed (${what})`;
}

/** Opens a URL for random access: one request, which also fetches the first bytes. */
export function openHttpSource(url: string, options: HttpSourceOptions = {}): Promise<HttpSource> {
  return new HttpSource(url, options).open();
}
