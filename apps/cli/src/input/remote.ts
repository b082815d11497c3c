// How the CLI reads http:// and https:// inputs: the headers to send (--http-header, and
// TENSOROPS_HTTP_HEADERS: one `Name: value` per line), how much a server that ignores Range may
// send whole (--max-download), how long the command may spend on them (--timeout, and
// TENSOROPS_TIMEOUT), one note per kind of retry on stderr (none with -q), and with
// TENSOROPS_DEBUG=1 one stderr line per request. Header values are sent, never printed: a
// malformed header is reported by its position and name, and notes and debug lines name the URL
// without its query string or credentials.

import type { HttpSourceOptions } from '@tensorops/io';
import type { OpenTensorFileOptions } from '@tensorops/io/node';
import { httpHeaderProblem } from '@tensorops/io/node/internal';
import { byteSizeOption } from '../args/byte-size.js';
import { usageError } from '../args/usage-errors.js';
import type { CliIO } from '../run/cli-io.js';

/** Seconds a command may spend on its http(s) inputs when neither --timeout nor the variable says. */
const DEFAULT_TIMEOUT_SECONDS = 60;

function parseHeaders(lines: readonly string[], where: string, into: Record<string, string>): void {
  lines.forEach((line, i) => {
    const colon = line.indexOf(':');
    if (colon <= 0) {
      throw usageError(`${where} #${i + 1} is not 'Name: value' (its value is not shown)`);
    }
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    const problem = httpHeaderProblem(name, value);
    if (problem !== undefined) throw usageError(`${where} #${i + 1}: ${problem}`);
    into[name] = value;
  });
}

/** --timeout, else TENSOROPS_TIMEOUT, else the default: seconds > 0, fractions allowed. */
function timeoutSeconds(flag: unknown, env: string | undefined): number {
  const [where, text] =
    flag !== undefined ? ['--timeout', String(flag)] : ['TENSOROPS_TIMEOUT', env];
  if (text === undefined || (flag === undefined && text.trim() === '')) {
    return DEFAULT_TIMEOUT_SECONDS;
  }
  const seconds = Number(text.trim());
  if (!/^\d*\.?\d+$/.test(text.trim()) || !(seconds > 0) || !Number.isFinite(seconds)) {
    throw usageError(`${where} takes a number of seconds > 0, got '${text}'`);
  }
  return seconds;
}

/** The HTTP options of one run, from its flags and environment. */
export function httpOptions(
  args: {
    readonly 'http-header'?: unknown;
    readonly 'max-download'?: unknown;
    readonly timeout?: unknown;
    readonly quiet?: unknown;
  },
  io: CliIO,
): HttpSourceOptions {
  const headers: Record<string, string> = {};
  const env = io.env.TENSOROPS_HTTP_HEADERS;
  if (env !== undefined && env.trim() !== '') {
    parseHeaders(
      env.split(/\r?\n/).filter((l) => l.trim() !== ''),
      'TENSOROPS_HTTP_HEADERS line',
      headers,
    );
  }
  const flags = args['http-header'] === undefined ? [] : [args['http-header']].flat().map(String);
  parseHeaders(flags, '--http-header', headers);
  const maxDownload = byteSizeOption('max-download', args['max-download'], 0);
  const timeoutMs = timeoutSeconds(args.timeout, io.env.TENSOROPS_TIMEOUT) * 1000;
  const debug = io.env.TENSOROPS_DEBUG === '1';
  const noted = new Set<string>();
  return {
    headers,
    maxDownload,
    // One budget for the whole command: every request and retry ends by then. The timer does
    // not keep the process alive.
    retryMs: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
    ...(args.quiet === true
      ? {}
      : {
          onRetry: (e) => {
            const note = `${e.url}: ${e.reason}; trying again`;
            if (noted.has(note)) return;
            noted.add(note);
            io.stderr.write(`tensorops: note: ${note}\n`);
          },
        }),
    ...(debug
      ? {
          onRequest: (e) =>
            io.stderr.write(
              `tensorops: http: GET ${e.url} ${e.range} -> ${e.status || 'connection failed'}, ${e.bytes} bytes${e.attempt > 1 ? ` (try ${e.attempt})` : ''}\n`,
            ),
        }
      : {}),
  };
}

/** What every input is opened with: the one tensor a reference names, and the run's HTTP options. */
export function openOptions(name: string | undefined, io: CliIO): OpenTensorFileOptions {
  return { tensor: name, http: io.http };
}
