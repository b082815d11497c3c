// A file over HTTP(S), read by byte ranges with the runtime's fetch (undici in Node, the browser's
// own elsewhere). No Node API: the browser build uses the same code; redirects.ts says how
// redirects differ in a browser.
//
// Rules:
// - The first request asks for the first `firstBytes` bytes; its answer gives the size
//   (Content-Range) and the validators (ETag, Last-Modified), and is kept: a header that fits is
//   read with that one request, a longer one with one more.
// - Every later request carries If-Match / If-Range (strong ETag) or If-Range /
//   If-Unmodified-Since (Last-Modified), and its answer must be a 206 for exactly the range asked,
//   with the same size and validators: a file that changes between requests fails loudly instead
//   of mixing two versions.
// - Only what a later try can change is retried, with exponential backoff (Retry-After honoured):
//   a connection reset, a body cut short, a try that receives nothing for `idleMs`, 408, 429 and
//   5xx. Anything else fails at once: a refused connection or an unknown host (as curl does), a
//   bad URL, a redirect loop, 4xx.
// - Each request (one range, its tries and redirects included) must end within `retryMs` of its
//   first try: a try is cut at that deadline however its bytes trickle in. `signal` ends every
//   request at once (an overall deadline for all the reads of a run), and nothing is retried then.
// - Every request starts again from the URL the caller gave, not from where an earlier one was
//   redirected: the caller's URL is the stable name and its origin the one that gets the caller's
//   headers, while a redirect target (a CDN URL signed for minutes) may expire mid-read.
// - A 200 to a ranged request means the server ignores Range: the file is taken whole only when it
//   is at most `maxDownload` bytes, else that is an error.
// - Header values (Authorization...) are sent, never printed: messages and `onRequest` events name
//   the URL without its query string or credentials, and header names at most. Invalid headers
//   and a URL's `user:password` are handled before any request (request-headers.ts).

import { TensorOpsError } from '@tensorops/core';
import { rangeOf } from '../file/capabilities.js';
import { coalesceReads, type RangeRead } from './coalesce.js';
import { fetchFollowingRedirects } from './redirects.js';
import { callerRequest } from './request-headers.js';

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

/** A try that failed in a way worth another: the run may say so (a note, a log line). */
export interface HttpRetry {
  /** The URL as printed: no query string, no user:password. */
  readonly url: string;
  /** Why the try failed: `HTTP 503`, `connection failed (ECONNRESET)`, `no data for 30 s`. */
  readonly reason: string;
  /** The try that failed, 1 for the first. */
  readonly attempt: number;
  /** Milliseconds until the next try. */
  readonly waitMs: number;
}

export interface HttpSourceOptions {
  /**
   * Extra request headers (Authorization, cookies): sent to the origin of the URL given, on
   * every request, never to another origin a redirect leads to, and never printed. A name or
   * value HTTP cannot carry is an E_USAGE error before any request.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Largest file taken whole from a server that ignores Range (default 0: none). */
  readonly maxDownload?: number;
  /** Requests in flight at once in {@link HttpSource.readMany} (default 8). */
  readonly concurrency?: number;
  /**
   * Time a request may take in all, from its first try to the last byte of its answer, retries
   * and redirects included, in ms (default 60 000).
   */
  readonly retryMs?: number;
  /** A try that receives no byte for this long is abandoned, in ms (default 30 000). */
  readonly idleMs?: number;
  /** Size of the first request, which holds most headers whole (default 64 KiB). */
  readonly firstBytes?: number;
  /** Largest single request when reads are merged (default 16 MiB). */
  readonly maxRequestBytes?: number;
  /** Called after every try and every redirect (counting, debug logs); it sees no header values. */
  readonly onRequest?: (event: HttpEvent) => void;
  /** Called before each retry (a note to the user); it sees no header values. */
  readonly onRetry?: (event: HttpRetry) => void;
  /**
   * Ends every request of this source when it aborts: an overall deadline for a run's reads
   * (`AbortSignal.timeout(ms)`). Nothing is retried after.
   */
  readonly signal?: AbortSignal;
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
    const query = /[?#]/.test(url) ? '?…' : '';
    return `${url.replace(/[?#].*$/s, '').replace(/^([^:/?#]+:\/\/)[^/?#]*@/, '$1')}${query}`;
  }
}

/** Why a try failed in a way worth another try (unless `final`: the request is out of time). */
class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    readonly final = false,
  ) {
    super(message);
  }
}

/** Connection errors a later try may not meet: a reset or cut connection, a timeout. */
const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Why a try was cut by this source: too long without data, past its deadline, or `signal`. */
type Cut = 'idle' | 'deadline' | 'signal';

/** An E_IO error with a message already whole (the URL as printed and why). */
function httpError(message: string, cause?: unknown): TensorOpsError {
  return new TensorOpsError('E_IO', message, cause === undefined ? undefined : { cause });
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

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
  /** The whole file, when a server that ignores Range sent it (at most `maxDownload` bytes). */
  bytes: Uint8Array | undefined = undefined;
  size = 0;
  /** Requests made (tries included) and body bytes received, for reports and tests. */
  readonly stats = { requests: 0, bytes: 0 };
  private prefix: Uint8Array = new Uint8Array(0);
  private etag: string | null = null;
  private lastModified: string | null = null;
  private readonly options: typeof DEFAULTS & HttpSourceOptions;
  /** The URL given, without its credentials (they travel as a header). */
  readonly url: string;
  readonly label: string;
  /** The caller's headers, for the origin of `url` only. */
  private readonly callerHeaders: Readonly<Record<string, string>>;

  /** Throws E_USAGE for a header HTTP cannot carry, before any request. */
  constructor(url: string, options: HttpSourceOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
    this.label = printableUrl(url);
    const caller = callerRequest(url, options.headers);
    this.url = caller.url;
    this.callerHeaders = caller.headers;
  }

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

  /** The whole file's bytes, held only when a server that ignores Range sent all of it. */
  bytesInMemory(position: number, length: number): Uint8Array | undefined {
    return rangeOf(this.bytes, position, length);
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
        throw httpError(`${this.label}: read past the end: bytes up to ${end} of ${this.size}`);
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
    const started = Date.now();
    const deadline = started + this.options.retryMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tryOnce(start, length, first, attempt, deadline);
      } catch (error) {
        if (!(error instanceof Transient)) throw error;
        const backoff = Math.min(2000, 100 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
        const wait = Math.max(backoff, error.retryAfterMs ?? 0);
        if (error.final || Date.now() + wait >= deadline) {
          const tries = `${attempt} ${attempt === 1 ? 'try' : 'tries'}`;
          throw httpError(
            `${this.label}: ${error.message} (gave up after ${tries} in ${seconds(Date.now() - started)}; the retryMs option allows more time)`,
          );
        }
        this.options.onRetry?.({ url: this.label, reason: error.message, attempt, waitMs: wait });
        await sleep(wait, this.options.signal);
      }
    }
  }

  /** One try: the request, its redirects and its body, cut at `deadline` or by `signal`. */
  private async tryOnce(
    start: number,
    length: number,
    first: boolean,
    attempt: number,
    deadline: number,
  ): Promise<{ status: number; body: Uint8Array; headers: Headers }> {
    const range = `bytes=${start}-${start + length - 1}`;
    const controller = new AbortController();
    let cut: Cut | undefined;
    const stop = (why: Cut): void => {
      cut ??= why;
      controller.abort();
    };
    const overall = this.options.signal;
    const onOverall = (): void => stop('signal');
    overall?.addEventListener('abort', onOverall);
    if (overall?.aborted === true) stop('signal');
    const total = setTimeout(() => stop('deadline'), Math.max(0, deadline - Date.now()));
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    const idle = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => stop('idle'), this.options.idleMs);
    };
    let status = 0;
    let received = 0;
    let answeredBy = this.url;
    idle();
    try {
      let res: Response;
      try {
        res = await fetchFollowingRedirects({
          url: this.url,
          callerHeaders: this.callerHeaders,
          readHeaders: { Range: range, ...(first ? {} : this.conditionalHeaders()) },
          signal: controller.signal,
          label: this.label,
          onRedirect: (url, redirectStatus) => {
            this.stats.requests++;
            const event = { range, attempt, status: redirectStatus, bytes: 0 };
            this.options.onRequest?.({ url: printableUrl(url), ...event });
          },
        });
      } catch (cause) {
        throw this.tryFailure(cause, cut);
      }
      status = res.status;
      if (res.url !== '') answeredBy = res.url;
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
            throw httpError(
              `${this.label}: the server sent more than the ${body.length} bytes of ${range}`,
            );
          }
          body.set(value, received);
          received += value.length;
        }
      } catch (cause) {
        await reader.cancel().catch(() => {});
        throw this.tryFailure(cause, cut);
      }
      if (received !== body.length) {
        throw new Transient(`the body of ${range} ended after ${received} of ${body.length} bytes`);
      }
      if (res.status === 200) this.size = body.length;
      return { status: res.status, body, headers: res.headers };
    } finally {
      clearTimeout(total);
      clearTimeout(idleTimer);
      overall?.removeEventListener('abort', onOverall);
      this.stats.requests++;
      this.stats.bytes += received;
      const event = { range, attempt, status, bytes: received };
      this.options.onRequest?.({ url: printableUrl(answeredBy), ...event });
    }
  }

  /** What a try that threw `cause` comes to: another try, or an error to report. */
  private tryFailure(cause: unknown, cut: Cut | undefined): Error {
    if (cut === 'signal') {
      const timedOut = (this.options.signal?.reason as Error | undefined)?.name === 'TimeoutError';
      return httpError(
        `${this.label}: ${timedOut ? 'the time allowed for all requests ran out' : 'the read was cancelled'} (the signal option)`,
      );
    }
    if (cut === 'deadline') {
      return new Transient(`no complete answer within ${seconds(this.options.retryMs)}`, 0, true);
    }
    if (cut === 'idle') return new Transient(`no data for ${seconds(this.options.idleMs)}`);
    if (cause instanceof TensorOpsError) return cause;
    const code = errorCode(cause);
    const reason = `connection failed (${code ?? innermostMessage(cause)})`;
    return code !== undefined && RETRYABLE_CODES.has(code)
      ? new Transient(reason)
      : httpError(`${this.label}: ${reason}`, cause);
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
    if (s === 408 || s === 429 || s >= 500) {
      return new Transient(`HTTP ${s}`, retryAfter(res.headers.get('retry-after')));
    }
    const changed = httpError(
      `${this.label}: the file changed on the server while it was being read (HTTP ${s} to a request conditional on the first response's ${isStrongEtag(this.etag) ? 'ETag' : 'Last-Modified'}); run the command again`,
    );
    if (s === 412) return changed;
    if (s === 200) {
      if (!first && Object.keys(this.conditionalHeaders()).length > 0) return changed;
      const declared = Number(res.headers.get('content-length') ?? Number.NaN);
      const max = this.options.maxDownload;
      // Without a Content-Length the body could be anything: only a declared size is taken.
      if (first && Number.isSafeInteger(declared) && declared <= max) return undefined;
      return httpError(
        `${this.label}: the server ignores Range requests (HTTP 200 to a ranged request)${Number.isSafeInteger(declared) ? ` and the file is ${declared} bytes` : ''}; allow downloading it whole with maxDownload: ${Number.isSafeInteger(declared) ? declared : 'BYTES'} (now ${max})`,
      );
    }
    if (s === 416 && first) {
      const total = parseContentRange(res.headers.get('content-range'))?.total;
      if (total === 0) return undefined;
    }
    if (s !== 206) {
      const hint = s === 401 || s === 403 ? ' (send credentials in the headers option)' : '';
      return httpError(`${this.label}: HTTP ${s} ${res.statusText}${hint}`);
    }
    const range = parseContentRange(res.headers.get('content-range'));
    if (range === undefined || range.start === undefined) {
      return httpError(
        `${this.label}: a 206 answer without a valid Content-Range (a server on another origin must expose it: Access-Control-Expose-Headers)`,
      );
    }
    const wantEnd = first ? Math.min(start + length, range.total) : start + length;
    if (!first && (range.total !== this.size || !this.sameValidators(res.headers))) return changed;
    if (range.start !== start || range.end !== wantEnd) {
      return httpError(
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

/**
 * The error code of a failed fetch (Node: on its cause, or on the first of an AggregateError's
 * errors when every address of a host failed), or undefined. Codes only: a message may quote
 * the URL.
 */
function errorCode(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return code;
    e = e instanceof AggregateError && e.errors.length > 0 ? e.errors[0] : e.cause;
  }
  return undefined;
}

/**
 * The first line of the innermost cause's message ("bad port"), for a failure without a code,
 * with any URL in it shown as {@link printableUrl} does and any quoted text left out: a runtime's
 * message may quote a URL or a header value.
 */
function innermostMessage(error: unknown): string {
  let inner = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const message = inner instanceof Error ? (inner.message.split('\n', 1)[0] ?? '') : '';
  const shown = message
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, (url) => printableUrl(url))
    .replace(/"[^"]*"|'[^']*'/g, '…')
    .trim();
  return shown === '' ? 'no answer' : shown.slice(0, 80);
}

/** Opens a URL for random access: one request, which also fetches the first bytes. */
export async function openHttpSource(
  url: string,
  options: HttpSourceOptions = {},
): Promise<HttpSource> {
  return new HttpSource(url, options).open();
}
