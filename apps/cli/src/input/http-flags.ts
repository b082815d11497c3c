import type { Options } from 'yargs';
import { BYTE_SIZE_UNITS_HELP } from '../args/byte-size.js';

/** The flags of http(s):// inputs (read by remote.ts): every command takes them. */
export const HTTP_FLAGS = {
  'http-header': {
    type: 'string',
    array: true,
    requiresArg: true,
    describe:
      "for http(s):// inputs: send 'Name: value' (repeatable; also TENSOROPS_HTTP_HEADERS, one per line); values are never printed",
  },
  'max-download': {
    type: 'string',
    requiresArg: true,
    describe: `for http(s):// inputs: bytes a server that ignores Range requests may send whole, a count or a size like 200MB (${BYTE_SIZE_UNITS_HELP}) (default 0)`,
  },
  timeout: {
    type: 'string',
    requiresArg: true,
    describe:
      'for http(s):// inputs: seconds the command may spend on them, every request, retry and redirect included (default 60; also TENSOROPS_TIMEOUT)',
  },
} as const satisfies Record<string, Options>;
