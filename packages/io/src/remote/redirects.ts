// Redirects of one HTTP(S) request, followed here so that the caller's headers go to the origin of
// the URL the caller gave, and to no other. fetch's own 'follow' strips only Authorization, Cookie
// and Proxy-Authorization on a hop to another origin: an API-key header would reach a CDN.
//
// Rules:
// - Where the runtime shows redirects (Node, Deno: `redirect: 'manual'` returns the 3xx itself),
//   each hop is a request of its own: to the caller's origin with the caller's headers and ours,
//   elsewhere with ours only (Range and the conditional headers belong to the read, not the caller).
// - A browser answers 'manual' with an opaque response (no status, no Location): there the
//   request is made again with 'follow' and so are all later ones, and the browser's rules apply
//   (it strips Authorization across origins, and CORS decides which headers another origin sees).
// - At most MAX_REDIRECTS hops, only to http: and https: URLs, and a URL seen twice in one chain is
//   a loop: each fails at once, as no later try could change it.

import { TensorOpsError } from '@tensorops/core';

/** Hops one request may take (the Fetch standard's limit). */
export const MAX_REDIRECTS = 20;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Set once a response shows that this runtime hides redirects (a browser). */
let runtimeHidesRedirects = false;

export interface RedirectRequest {
  /** The URL the caller gave (without credentials). */
  readonly url: string;
  /** The caller's headers: sent to the origin of `url` only. */
  readonly callerHeaders: Readonly<Record<string, string>>;
  /** Headers of the read itself (Range, If-Match...): sent on every hop. */
  readonly readHeaders: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /** Names the request in messages (the caller's URL as printed). */
  readonly label: string;
  /** Called for every redirect answer, with the URL that gave it. */
  readonly onRedirect: (url: string, status: number) => void;
}

/** The answer at the end of the redirects from `request.url`. */
export async function fetchFollowingRedirects(request: RedirectRequest): Promise<Response> {
  const origin = new URL(request.url).origin;
  const seen = new Set<string>();
  let url = request.url;
  for (;;) {
    const headers = new Headers(request.readHeaders);
    if (new URL(url).origin === origin) {
      for (const [name, value] of Object.entries(request.callerHeaders)) {
        if (!headers.has(name)) headers.set(name, value);
      }
    }
    const init = { headers, signal: request.signal };
    if (runtimeHidesRedirects) return fetch(url, { ...init, redirect: 'follow' });
    const res = await fetch(url, { ...init, redirect: 'manual' });
    if (res.type === 'opaqueredirect') {
      runtimeHidesRedirects = true;
      continue;
    }
    if (!REDIRECT_STATUSES.has(res.status)) return res;
    await res.body?.cancel().catch(() => {});
    request.onRedirect(url, res.status);
    seen.add(url);
    url = nextUrl(res, url, request.label);
    if (seen.has(url)) throw redirectError(request.label, 'redirects in a loop');
    if (seen.size >= MAX_REDIRECTS) {
      throw redirectError(request.label, `more than ${MAX_REDIRECTS} redirects`);
    }
  }
}

function nextUrl(res: Response, from: string, label: string): string {
  const location = res.headers.get('location');
  if (location === null) {
    throw redirectError(label, `HTTP ${res.status} redirect without a Location`);
  }
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw redirectError(label, `HTTP ${res.status} redirect to an invalid URL`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw redirectError(
      label,
      `redirected to a ${next.protocol} URL; only http: and https: are followed`,
    );
  }
  next.hash = '';
  return next.href;
}

function redirectError(label: string, what: string): TensorOpsError {
  return new TensorOpsError('E_IO', `${label}: ${what}`);
}
