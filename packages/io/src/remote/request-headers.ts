// The caller's part of an HTTP(S) request: the headers given in options and the `user:password` a
// URL may hold. Both are checked before any request is made, and neither is ever printed.
//
// - A header name must be an HTTP token and a value visible characters, spaces and tabs (RFC 9110
//   field-value). fetch refuses the others with a message that quotes the value, and a raw CR or
//   LF would break a one-line error: the problem is told naming the header, never its value.
// - fetch refuses a URL with credentials; they are sent as Basic authorization instead (as curl
//   does), unless the headers already hold an Authorization.

import { TensorOpsError } from '@tensorops/core';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** What is wrong with the header `name: value`, in words that show neither; undefined if nothing. */
export function httpHeaderProblem(name: string, value: string): string | undefined {
  if (!TOKEN.test(name)) return 'the header name is not an HTTP token (the name is not shown)';
  if (!FIELD_VALUE.test(value)) {
    return `header '${name}': its value has a character HTTP cannot carry (a control character such as CR, LF or NUL, or one beyond U+00FF); the value is not shown`;
  }
  return undefined;
}

/** A URL without its credentials, and the headers to send to its origin. */
export interface CallerRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Checks `headers` and moves the credentials of `url` into them. */
export function callerRequest(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): CallerRequest {
  for (const [name, value] of Object.entries(headers)) {
    const problem = httpHeaderProblem(name, value);
    if (problem !== undefined) throw new TensorOpsError('E_USAGE', `headers option: ${problem}`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // fetch reports the URL itself (ERR_INVALID_URL) without echoing it.
    return { url, headers };
  }
  if (parsed.username === '' && parsed.password === '') return { url, headers };
  const credentials = `${decoded(parsed.username)}:${decoded(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  const hasAuthorization = Object.keys(headers).some((n) => n.toLowerCase() === 'authorization');
  return {
    url: parsed.href,
    headers: hasAuthorization ? headers : { ...headers, Authorization: basic(credentials) },
  };
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** `Basic base64(utf-8 bytes)` (RFC 7617), with the runtime's btoa (browsers and Node alike). */
function basic(credentials: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(credentials)) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
