// How the CLI reads http:// and https:// inputs: the headers to send (--http-header, and
// TENSOROPS_HTTP_HEADERS: one `Name: value` per line), how much a server that ignores Range may
// send whole (--max-download), and with TENSOROPS_DEBUG=1 one stderr line per request. Header
// values are sent, never printed: a malformed header is reported by its position, and the debug
// lines name the URL without its query string.

import type { HttpSourceOptions } from '@tensorops/io';
import type { OpenTensorFileOptions } from '@tensorops/io/node';
import { integerOption, usageError } from './args.js';
import type { CliIO } from './cli-io.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHeaders(lines: readonly string[], where: string, into: Record<string, string>): void {
  lines.forEach((line, i) => {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) {
      throw usageError(`${where} #${i + 1} is not 'Name: value' (its value is not shown)`);
    }
    into[name] = line.slice(colon + 1).trim();
  });
}

/** The HTTP options of one run, from its flags and environment. */
export function httpOptions(
  args: { readonly 'http-header'?: unknown; readonly 'max-download'?: unknown },
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
  const maxDownload = integerOption('max-download', args['max-download'], 0);
  if (maxDownload < 0) throw usageError('--max-download takes a byte count >= 0');
  const debug = io.env.TENSOROPS_DEBUG === '1';
  return {
    headers,
    maxDownload,
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
