// No secret given for an http(s):// input is ever printed, written or sent to another origin:
// a URL's password and query token, a header given by flag or by TENSOROPS_HTTP_HEADERS, and the
// signed query of a redirect target. Every command that takes URL inputs runs against a real
// server on 127.0.0.1 that redirects to a second one (another origin, as a CDN would), with
// TENSOROPS_DEBUG=1, and its stdout, stderr and written files are searched for each secret.

import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFolder, type TestServer } from '../../../packages/io/test/http-servers.js';
import { REPO, tempDir, tensoropsAsync } from './helpers.js';

const PASSWORD = 'pa55-s3cr3t';
const TOKEN = 'qu3ry-s3cr3t';
const FLAG_KEY = 'fl4g-s3cr3t';
const ENV_KEY = 'env-s3cr3t';
const SIGNATURE = 's1gned-s3cr3t';
const BASIC = Buffer.from(`me:${PASSWORD}`).toString('base64');
const SECRETS = [PASSWORD, TOKEN, FLAG_KEY, ENV_KEY, SIGNATURE, BASIC];
const FIXTURES = ['data.npy', 'ge_idx.npy', 'nd_idx.npy', 'gt_steps.npy', 'gt_parents.npy'];

let origin: TestServer | undefined;
let cdn: TestServer | undefined;
afterEach(async () => {
  await origin?.close();
  await cdn?.close();
  origin = cdn = undefined;
});

/** Serves the CLI fixtures: `origin` sends /cdn/NAME on to `cdn` with a signed query. */
async function servers(): Promise<{ origin: TestServer; cdn: TestServer }> {
  const dir = tempDir();
  for (const f of [...FIXTURES, 'gt_lengths.npy']) {
    copyFileSync(join(REPO, 'fixtures', 'cli', f), join(dir, f));
  }
  cdn = await serveFolder(dir);
  const cdnUrl = cdn.url.replace('127.0.0.1', 'localhost');
  origin = await serveFolder(dir, {
    redirect: (url) =>
      url.startsWith('/cdn/')
        ? `${cdnUrl}/${url.slice(5).split('?')[0]}?sig=${SIGNATURE}`
        : undefined,
  });
  return { origin, cdn };
}

/** Every secret found in `text`. */
const secretsIn = (text: string): string[] => SECRETS.filter((s) => text.includes(s));

describe('secrets of http(s):// inputs', () => {
  it('appear in no output, error or debug line of any command, and never reach another origin', async () => {
    const { origin, cdn } = await servers();
    const host = origin.url.slice('http://'.length);
    const url = (name: string, via = '/cdn') =>
      `http://me:${PASSWORD}@${host}${via}/${name}?token=${TOKEN}`;
    const out = tempDir();
    const runs: [string[], number][] = [
      [['inspect', url('data.npy')], 0],
      [['inspect', url('data.npy'), '--json'], 0],
      [['inspect', url('data.npy'), url('ge_idx.npy', '')], 0],
      [['show', url('data.npy'), '--json'], 0],
      [['show', url('data.npy'), '-o', join(out, 'show.npy')], 0],
      [['convert', url('data.npy'), join(out, 'c.safetensors')], 0],
      [['gather', url('data.npy'), '--indices', '[2, 0]', '-o', join(out, 'g.npy')], 0],
      [['gather-elements', url('data.npy'), url('ge_idx.npy'), '--axis', '1', '--json'], 0],
      [['gather-nd', url('data.npy'), url('nd_idx.npy'), '--json'], 0],
      [
        [
          'gather-tree',
          url('gt_steps.npy'),
          url('gt_parents.npy'),
          url('gt_lengths.npy'),
          '--end-token',
          '10',
          '--json',
        ],
        0,
      ],
      [
        [
          'beams',
          url('gt_steps.npy'),
          url('gt_parents.npy'),
          url('gt_lengths.npy'),
          '--end-token',
          '8',
        ],
        0,
      ],
      // Failures: a missing file (its message names the URL), an index out of range, a name
      // (which a .npy refuses, printing it) written before the query, which stays the URL's.
      [['inspect', url('missing.npy')], 1],
      [['show', url('data.npy').replace('?', ':x?')], 1],
      [['gather', url('data.npy'), '--indices', '[9]'], 1],
      // Index text is read from files only: a URL naming one is refused, not opened as a path.
      [['gather', url('data.npy'), url('ids.txt', '').replace(/\?.*/, '')], 2],
    ];
    for (const [args, status] of runs) {
      const r = await tensoropsAsync([...args, '--http-header', `X-Api-Key: ${FLAG_KEY}`], {
        TENSOROPS_DEBUG: '1',
        TENSOROPS_HTTP_HEADERS: `X-Env-Key: ${ENV_KEY}`,
      });
      const what = args.slice(0, 2).join(' ');
      expect(r.status, `${what}: ${r.stderr}`).toBe(status);
      expect(secretsIn(r.stdout.toString('latin1')), what).toEqual([]);
      expect(secretsIn(r.stderr), what).toEqual([]);
      expect(r.stderr, what).toMatch(/tensorops: http: GET http:\/\/127\.0\.0\.1:\d+\//);
    }
    for (const f of readdirSync(out)) {
      expect(secretsIn(readFileSync(join(out, f)).toString('latin1')), f).toEqual([]);
    }
    // Sent to the origin given, each time...
    expect(origin.requests.length).toBeGreaterThan(runs.length);
    for (const r of origin.requests) {
      expect(r.headers['x-api-key']).toBe(FLAG_KEY);
      expect(r.headers['x-env-key']).toBe(ENV_KEY);
      expect(r.headers.authorization).toBe(`Basic ${BASIC}`);
    }
    // ...and never to the origin of the redirects, which gets its own signed query only.
    expect(cdn.requests.length).toBeGreaterThan(runs.length);
    for (const r of cdn.requests) {
      expect(secretsIn(JSON.stringify(r.headers)), r.path).toEqual([]);
      expect(r.headers.range, r.path).toMatch(/^bytes=\d+-\d+$/);
    }
  });

  it('shows a URL without its query string in the inspect report, text and --json', async () => {
    const { origin } = await servers();
    const url = `${origin.url}/data.npy?token=${TOKEN}`;
    const text = await tensoropsAsync(['inspect', url]);
    expect(text.status).toBe(0);
    expect(text.stdout.toString().split('\n')[0]).toBe(
      `${origin.url}/data.npy?…: npy, 1 tensor, 368 B`,
    );
    const json = await tensoropsAsync(['inspect', url, '--json']);
    expect(JSON.parse(json.stdout.toString()).file).toBe(`${origin.url}/data.npy?…`);
  });

  it('refuses a header HTTP cannot carry at once (exit 2), naming it and not its value', async () => {
    const { origin } = await servers();
    const url = `${origin.url}/data.npy`;
    const cases: [string[], Record<string, string>, string][] = [
      [
        ['--http-header', `Authorization: Bearer ${FLAG_KEY}\rX`],
        {},
        "--http-header #1: header 'Authorization'",
      ],
      [
        [],
        { TENSOROPS_HTTP_HEADERS: `X-Env-Key: ${ENV_KEY}\rX` },
        "TENSOROPS_HTTP_HEADERS line #1: header 'X-Env-Key'",
      ],
      [['--http-header', `X-Key: ${FLAG_KEY}\u0001`], {}, "--http-header #1: header 'X-Key'"],
      [['--http-header', `X-Key: ${FLAG_KEY}\u20ac`], {}, "--http-header #1: header 'X-Key'"],
      [
        ['--http-header', `X ${FLAG_KEY}: v`],
        {},
        '--http-header #1: the header name is not an HTTP token',
      ],
    ];
    for (const [flags, env, named] of cases) {
      const r = await tensoropsAsync(['gather', url, '--indices', '0', ...flags], env);
      expect(r.status, named).toBe(2);
      expect(r.stderr.startsWith(`tensorops: error: ${named}`), r.stderr).toBe(true);
      expect(
        r.stderr.endsWith('(the name is not shown)\n') ||
          r.stderr.endsWith('the value is not shown\n'),
      ).toBe(true);
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).not.toMatch(/\r/);
      expect(secretsIn(r.stderr)).toEqual([]);
    }
    expect(origin.requests).toHaveLength(0);
  });
});
