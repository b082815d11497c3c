// The packages as users get them: the README's install outside the checkout, run as written
// (`pnpm pack:all` packs all four, workspace:^ becoming a real range; npm installs the CLI
// tarball globally into a temp prefix and the library tarballs into a fresh project), then used
// from there: ESM import, CommonJS require (Node >= 20.19), the README examples, browser bundles
// of the pure entries, the global `tensorops` bin, plus publint and @arethetypeswrong/cli on every
// tarball. npm fetches only third-party dependencies (ink, react, yauzl, yazl, zip.js, crc-32 and
// theirs); every @tensorops/* dependency must come from the local tarballs.
import { execFile, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const execFileAsync = promisify(execFile);

interface Pkg {
  readonly dir: string;
  readonly name: string;
}

const PACKAGES: readonly Pkg[] = [
  { dir: 'packages/core', name: '@tensorops/core' },
  { dir: 'packages/io', name: '@tensorops/io' },
  { dir: 'packages/gather-tree', name: '@tensorops/gather-tree' },
  { dir: 'apps/cli', name: 'tensorops' },
];
const LIBRARIES = PACKAGES.filter((p) => p.name.startsWith('@tensorops/'));
const CLI = PACKAGES.find((p) => p.name === 'tensorops') as Pkg;

let work = '';
/** Tarball path and unpacked `package/` directory per package name. */
const packed = new Map<string, { tgz: string; root: string }>();
const consumer = (): string => join(work, 'my-app');
const globalPrefix = (): string => join(work, 'global');
/** What the README's install printed, `tensorops --version` among it. */
let versionPrinted = '';

/** What `pnpm run` adds to the environment; npm must behave as it does for a user. */
const PNPM_RUN_ENV =
  /^(npm_config_user_agent|npm_config_verify_deps_before_run|npm_lifecycle_|npm_package_|npm_command|npm_execpath|npm_node_execpath|PNPM_)/i;

function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !PNPM_RUN_ENV.test(k)));
}

/** npm as a user runs it, with `npm i -g` going to the temp prefix, found first on PATH. */
function globalEnv(): NodeJS.ProcessEnv {
  // No node_modules/.bin of this repository in sight.
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d && !d.includes('node_modules'));
  return {
    ...npmEnv(),
    npm_config_prefix: globalPrefix(),
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    PATH: [join(globalPrefix(), 'bin'), dirname(process.execPath), ...path].join(delimiter),
    // The compiled-code cache goes here instead of the user's ~/.cache.
    TENSOROPS_CACHE_DIR: join(work, 'code-cache'),
  };
}

function files(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p, base) : [relative(base, p).split(sep).join('/')];
  });
}

function pkgJson(name: string): Record<string, unknown> & {
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports: unknown;
  bin?: Record<string, string>;
  main?: string;
  types?: string;
  typesVersions?: Record<string, Record<string, string[]>>;
} {
  return JSON.parse(readFileSync(join(root(name), 'package.json'), 'utf8'));
}

function root(name: string): string {
  const p = packed.get(name);
  if (!p) throw new Error(`${name} was not packed`);
  return p.root;
}

/** Every module specifier a shipped JS file can load: static, dynamic, `require` (and esbuild's `__require`). */
function specifiers(code: string): string[] {
  const found: string[] = [];
  // A keyword inside a string (`"from"`) or a property (`t.from`) starts no import.
  const re =
    /(?<![\w$.'"])(?:from\s*|import\s*\(\s*|import\s+|require\s*\(\s*)(['"])([^'"\n,]+)\1/g;
  for (const m of code.matchAll(re)) found.push(m[2] as string);
  return found;
}

const packageOf = (spec: string): string =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Runs a node script in the consumer project; fails with its stderr when it exits non-zero. */
function node(args: string[], cwd = consumer()): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: npmEnv() });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}\n${r.stderr}`);
  // require(esm) may announce itself as experimental on some 20.x/22.x releases; nothing else may be said.
  const stderr = r.stderr
    .split('\n')
    .filter((l) => l && !/ExperimentalWarning|--trace-warnings/.test(l))
    .join('\n');
  return { stdout: r.stdout, stderr };
}

/** The lines of the README's "Installing outside the checkout" block, as written. */
function readmeInstall(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Installing outside the checkout'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no install block outside the checkout');
  return block;
}

// The README's install outside the checkout, run as written by sh: the checkout is reached as
// `tensorops` and the user's project `my-app` sits next to it; `npm i -g` installs into a
// temp prefix (npm_config_prefix), whose bin comes first on PATH as a global one would.
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tensorops-pack-'));
  for (const pkg of PACKAGES) {
    expect(existsSync(join(REPO, pkg.dir, 'dist')), `build ${pkg.dir} first`).toBe(true);
  }
  symlinkSync(REPO, join(work, 'tensorops'), 'dir');
  mkdirSync(consumer());
  writeFileSync(join(consumer(), 'package.json'), '{ "name": "my-app", "private": true }\n');
  const installed = await execFileAsync('sh', ['-ec', readmeInstall()], {
    cwd: join(work, 'tensorops'),
    // As a shell that cd'd through the link keeps it: `cd ..` leads next to `tensorops`.
    env: { ...globalEnv(), PWD: join(work, 'tensorops') },
    maxBuffer: 1 << 26,
  }).catch((e: { stdout: string; stderr: string }) => {
    throw new Error(`the README's install failed:\n${e.stdout}${e.stderr}`);
  });
  versionPrinted = installed.stdout;
  // Every test below reads copies of the tarballs `pnpm pack:all` left in packed/.
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const made = readdirSync(join(REPO, 'packed'));
  expect(made.sort()).toEqual(
    PACKAGES.map((p) => {
      const { version } = JSON.parse(readFileSync(join(REPO, p.dir, 'package.json'), 'utf8'));
      return `${p.name.replace('@', '').replace('/', '-')}-${version}.tgz`;
    }).sort(),
  );
  for (const f of made) {
    const tgz = join(tarballs, f);
    copyFileSync(join(REPO, 'packed', f), tgz);
    const unpacked = join(work, 'unpacked', f);
    mkdirSync(unpacked, { recursive: true });
    await execFileAsync('tar', ['xzf', tgz, '-C', unpacked]);
    const { name } = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8'));
    packed.set(name, { tgz, root: join(unpacked, 'package') });
  }
}, 300_000);

// Removing the installed consumer (thousands of files) can take longer than vitest's 10 s hook
// default on a busy machine.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe.each(PACKAGES)('tarball of $name', (pkg) => {
  it('has the metadata a published package needs', () => {
    const text = readFileSync(join(root(pkg.name), 'package.json'), 'utf8');
    expect(text).not.toContain('workspace:');
    const p = pkgJson(pkg.name);
    expect(p.name).toBe(pkg.name);
    expect(p.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(p.private).toBeUndefined();
    expect(typeof p.description === 'string' && p.description.length > 20).toBe(true);
    expect(p.license).toBe('MIT');
    expect(p.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/tensorops/tensorops.git',
      directory: pkg.dir,
    });
    expect(Array.isArray(p.keywords) && p.keywords.length > 0).toBe(true);
    expect(p.type).toBe('module');
    expect(p.engines).toEqual({ node: '>=20.19' });
    expect(typeof p.sideEffects).toBe('boolean');
    expect(Array.isArray(p.files)).toBe(true);
  });

  it('ships only what runs, with README, LICENSE, CHANGELOG, declarations and source maps', () => {
    const dir = root(pkg.name);
    const list = files(dir);
    for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'])
      expect(list).toContain(f);
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toContain(
      `## ${pkgJson(pkg.name).version}`,
    );
    const unexpected = list.filter(
      (f) =>
        !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(f) &&
        !(pkg === CLI
          ? /^dist\/(tensorops\.cjs|tensorops-main\.cjs|ui\.mjs|yauzl\.cjs|yazl\.cjs)(\.map)?$/.test(
              f,
            )
          : /^(dist\/.+\.(js|js\.map|d\.ts|d\.ts\.map)|src\/.+\.ts)$/.test(f)),
    );
    expect(unexpected).toEqual([]);
    expect(list.filter((f) => /\.test\.|tsbuildinfo|fixtures\//.test(f))).toEqual([]);
    const js = list.filter((f) => /\.[cm]?js$/.test(f));
    expect(js.length).toBeGreaterThan(0);
    for (const f of js) {
      expect(list, `${f} has no source map`).toContain(`${f}.map`);
      if (pkg !== CLI) {
        const dts = f.replace(/\.js$/, '.d.ts');
        expect(list, `${f} has no declarations`).toContain(dts);
        expect(list, `${dts} has no declaration map`).toContain(`${dts}.map`);
      }
    }
  });

  it('has source maps that point at files in the tarball (or carry the sources inline)', () => {
    const dir = root(pkg.name);
    const list = files(dir);
    for (const f of list.filter((x) => /\.([cm]?js|d\.ts)$/.test(x))) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(dir, f), 'utf8'))?.[1];
      expect(url, `${f} names no source map`).toBeDefined();
      expect(existsSync(join(dir, dirname(f), url as string)), `${f} -> ${url}`).toBe(true);
    }
    let checked = 0;
    for (const f of list.filter((x) => x.endsWith('.map'))) {
      const map = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        sources: string[];
        sourcesContent?: (string | null)[];
        sourceRoot?: string;
      };
      map.sources.forEach((source, i) => {
        const path = resolve(dir, dirname(f), map.sourceRoot ?? '', source);
        const inTarball = path.startsWith(dir + sep) && existsSync(path);
        const inline = typeof map.sourcesContent?.[i] === 'string';
        // A third-party file whose own published map names a source it does not ship
        // (get-caller-file's index.ts) cannot be recovered by us; our sources must be.
        const thirdParty = source.includes('/node_modules/');
        expect(inTarball || inline || thirdParty, `${f}: source ${source} is missing`).toBe(true);
        checked++;
      });
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('lists types first in every export and points exports and bin at shipped files', () => {
    const dir = root(pkg.name);
    const p = pkgJson(pkg.name);
    const targets: string[] = [];
    const walk = (node: unknown): void => {
      if (typeof node === 'string') targets.push(node);
      else if (node && typeof node === 'object') {
        const keys = Object.keys(node);
        if (keys.includes('types')) expect(keys[0], JSON.stringify(node)).toBe('types');
        for (const v of Object.values(node)) walk(v);
      }
    };
    walk(p.exports);
    // Top-level main and types (read by resolution that predates exports) and typesVersions too.
    const typesVersions = Object.values(p.typesVersions ?? {}).flatMap((m) =>
      Object.values(m).flat(),
    );
    for (const t of [
      ...targets,
      ...Object.values(p.bin ?? {}),
      ...[p.main, p.types].filter((x) => x !== undefined),
      ...typesVersions,
    ])
      expect(existsSync(join(dir, t)), t).toBe(true);
    if (pkg === CLI) {
      expect(Object.keys(p.bin ?? {})).toEqual(['tensorops']);
      const bin = readFileSync(join(dir, p.bin?.tensorops as string), 'utf8');
      expect(bin.startsWith('#!/usr/bin/env node\n')).toBe(true);
    } else {
      expect(p.exports).toMatchObject({
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      });
      expect([p.main, p.types]).toEqual(['./dist/index.js', './dist/index.d.ts']);
      // Every subpath of exports (package.json aside) has its typesVersions entry for node10.
      const subpaths = Object.keys(p.exports as object)
        .filter((k) => k !== '.' && k !== './package.json')
        .map((k) => k.slice(2));
      expect(Object.keys(p.typesVersions?.['*'] ?? {})).toEqual(subpaths);
    }
  });

  it('declares exactly the packages its shipped code imports (no dev-only dependency at run time)', () => {
    const dir = root(pkg.name);
    const p = pkgJson(pkg.name);
    const imported = new Set<string>();
    const builtins = new Set<string>();
    for (const f of files(dir).filter((x) => /\.[cm]?js$/.test(x))) {
      for (const spec of specifiers(readFileSync(join(dir, f), 'utf8'))) {
        if (spec.startsWith('.')) continue;
        if (isBuiltin(spec)) builtins.add(spec);
        else imported.add(packageOf(spec));
      }
    }
    const declared = Object.keys({ ...p.dependencies, ...p.peerDependencies });
    expect([...imported].sort()).toEqual(declared.sort());
    if (pkg.name === '@tensorops/core' || pkg.name === '@tensorops/gather-tree')
      expect([...builtins]).toEqual([]);
  });

  it('passes publint --strict', async () => {
    const bin = join(REPO, 'node_modules', '.bin', 'publint');
    const r = await execFileAsync(bin, ['run', packed.get(pkg.name)?.tgz as string, '--strict'], {
      env: npmEnv(),
    }).catch((e: { stdout: string; stderr: string }) => {
      throw new Error(`publint failed:\n${e.stdout}${e.stderr}`);
    });
    expect(r.stdout).toContain('All good!');
  });
});

// ESM-only packages: Node >= 20.19 loads them with require() too (require(esm)), which attw's
// "cjs-resolves-to-esm" rule predates, so that rule is off; its default profile checks that the
// types resolve from CommonJS and ESM, with bundler resolution and with node10 (TypeScript's
// pre-exports `moduleResolution: node`, served by the top-level `types` and `typesVersions`).
describe.each(LIBRARIES)('@arethetypeswrong/cli on $name', (pkg) => {
  it('finds no problem in the types', async () => {
    const bin = join(REPO, 'node_modules', '.bin', 'attw');
    const args = [
      packed.get(pkg.name)?.tgz as string,
      '--ignore-rules',
      'cjs-resolves-to-esm',
      '--format',
      'ascii',
      '--no-color',
      '--no-emoji',
    ];
    await execFileAsync(bin, args, { env: npmEnv() }).catch((e: { stdout: string }) => {
      throw new Error(`attw failed:\n${e.stdout}`);
    });
  });
});

/** One operation per package, loaded by `load` (ESM import or CommonJS require). */
const OPS = `
async function ops(core, io, ioNode, gatherTree, out) {
  const picked = core.gather(
    core.tensorFrom('float32', [3, 2], [1, 2, 3, 4, 5, 6]),
    core.tensorFrom('int64', [2], [2n, -3n]),
  );
  await ioNode.writeTensorFile(out, picked);
  const back = await ioNode.readTensorFile(out);
  const beams = gatherTree.gatherTree(
    core.tensorFrom('int32', [3, 1, 2], [5, 6, 7, 2, 8, 9]),
    core.tensorFrom('int32', [3, 1, 2], [0, 0, 1, 0, 1, 0]),
    core.tensorFrom('int32', [1], [3]),
    2,
  );
  let sameErrorClass = false;
  try {
    io.decodeNpy(new Uint8Array(3));
  } catch (e) {
    // One copy of core in the tree: io's errors are the consumer's TensorOpsError.
    sameErrorClass = e instanceof core.TensorOpsError && e.code === 'E_FORMAT';
  }
  console.log(JSON.stringify({
    core: [picked.dtype, picked.shape, core.tensorValues(picked)],
    io: [io.encodeNpy(picked).length, Array.from(back.data), sameErrorClass],
    gatherTree: core.tensorValues(beams),
  }));
}
`;
const OPS_OUTPUT = `${JSON.stringify({
  core: ['float32', [2, 2], [5, 6, 1, 2]],
  io: [144, [0, 0, 160, 64, 0, 0, 192, 64, 0, 0, 128, 63, 0, 0, 0, 64], true],
  gatherTree: [5, 6, 2, 7, 2, 9],
})}\n`;

describe('installed from the tarballs with npm', () => {
  it("runs the README's install: the CLI printed its version, the libraries are in my-app", () => {
    expect(versionPrinted.split('\n')).toContain(pkgJson(CLI.name).version);
    for (const pkg of LIBRARIES)
      expect(existsSync(join(consumer(), 'node_modules', pkg.name, 'package.json'))).toBe(true);
  });

  it('resolves every @tensorops/* library from a local tarball, one copy each', () => {
    const lock = JSON.parse(readFileSync(join(consumer(), 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; version?: string; link?: boolean }>;
    };
    const ours = Object.entries(lock.packages).filter(([k]) =>
      /node_modules\/(@tensorops\/|tensorops$)/.test(k),
    );
    expect(ours.map(([k]) => k).sort()).toEqual(
      LIBRARIES.map((p) => `node_modules/${p.name}`).sort(),
    );
    for (const [, entry] of ours) {
      expect(entry.link).toBeUndefined();
      expect(entry.resolved).toMatch(/^file:.*\.tgz$/);
    }
  });

  it('imports every package from ESM and runs one operation each', () => {
    writeFileSync(
      join(consumer(), 'esm.mjs'),
      `import * as core from '@tensorops/core';
import * as io from '@tensorops/io';
import * as ioNode from '@tensorops/io/node';
import * as gatherTree from '@tensorops/gather-tree';
${OPS}
await ops(core, io, ioNode, gatherTree, 'esm-out.npy');
`,
    );
    const r = node(['esm.mjs']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(OPS_OUTPUT);
  });

  it('requires every package from CommonJS (require(esm), Node >= 20.19) and runs one operation each', () => {
    writeFileSync(
      join(consumer(), 'cjs.cjs'),
      `'use strict';
const core = require('@tensorops/core');
const io = require('@tensorops/io');
const ioNode = require('@tensorops/io/node');
const gatherTree = require('@tensorops/gather-tree');
${OPS}
ops(core, io, ioNode, gatherTree, 'cjs-out.npy').catch((e) => { console.error(e); process.exit(1); });
`,
    );
    const r = node(['cjs.cjs']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(OPS_OUTPUT);
  });

  it.each(LIBRARIES)('runs the README examples of $name and prints what they say', (pkg) => {
    const readme = readFileSync(join(root(pkg.name), 'README.md'), 'utf8');
    expect(readme).toMatch(new RegExp(`npm (i|install) ${pkg.name.replace('/', '\\/')}`));
    expect(readme).toMatch(/^## API/m);
    const blocks = [
      ...readme.matchAll(/```js\n([\s\S]*?)```(?:\n+prints\n+```text\n([\s\S]*?)```)?/g),
    ];
    expect(blocks.length).toBeGreaterThan(0);
    blocks.forEach((m, i) => {
      const file = `readme-${pkg.name.split('/')[1]}-${i}.mjs`;
      writeFileSync(join(consumer(), file), m[1] as string);
      const r = node([file]);
      expect(r.stderr).toBe('');
      if (m[2] !== undefined) expect(r.stdout).toBe(m[2]);
    });
  });

  it.each(LIBRARIES)(
    'bundles $name for a browser (no node: import) and runs it without Node globals',
    async (pkg) => {
      const esbuild = createRequire(join(REPO, 'apps/cli/package.json'))('esbuild') as {
        build(options: object): Promise<{
          outputFiles: { text: string }[];
          metafile: {
            inputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
            outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
          };
        }>;
      };
      const entry: Record<string, string> = {
        '@tensorops/core': `import { gather, tensorFrom, tensorValues } from '@tensorops/core';
globalThis.result = tensorValues(gather(tensorFrom('int32', [4], [10, 20, 30, 40]), tensorFrom('int64', [3], [3n, -4n, 1n])));`,
        '@tensorops/gather-tree': `import { tensorFrom } from '@tensorops/core';
import { decodeBeams, formatTokens } from '@tensorops/gather-tree';
const d = decodeBeams(tensorFrom('int32', [3, 1, 2], [5, 6, 7, 2, 8, 9]), tensorFrom('int32', [3, 1, 2], [0, 0, 1, 0, 1, 0]), tensorFrom('int32', [1], [3]), 2);
globalThis.result = d.beams.map((b) => formatTokens(b.tokens));`,
        '@tensorops/io': `import { tensorFrom } from '@tensorops/core';
import { decodeNpy, encodeNpy } from '@tensorops/io';
const t = decodeNpy(encodeNpy(tensorFrom('uint16', [2], [7, 65535])));
globalThis.result = [t.dtype, t.shape, Array.from(t.data)];`,
      };
      const expected: Record<string, unknown> = {
        '@tensorops/core': [40, 10, 20],
        '@tensorops/gather-tree': ['5', '6 7 9'],
        '@tensorops/io': ['uint16', [2], [7, 0, 255, 255]],
      };
      const out = await esbuild.build({
        stdin: { contents: entry[pkg.name], resolveDir: consumer(), sourcefile: 'entry.js' },
        absWorkingDir: consumer(),
        bundle: true,
        platform: 'browser',
        format: 'iife',
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      // What the code bundled: only @tensorops files (io's Blob and URL readers, parsed for their
      // lazily imported zip.js and crc-32, are left out when unused).
      const bundled = Object.values(out.metafile.outputs).flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([, i]) => i.bytesInOutput > 0)
          .map(([path]) => path),
      );
      expect(
        bundled.filter((i) => i !== 'entry.js' && !i.startsWith('node_modules/@tensorops/')),
      ).toEqual([]);
      for (const input of Object.values(out.metafile.inputs))
        expect(input.imports.filter((i) => i.external || i.path.startsWith('node:'))).toEqual([]);
      // A bare realm: JavaScript builtins and what browsers also have, no process, Buffer or require.
      const sandbox: Record<string, unknown> = { TextEncoder, TextDecoder };
      runInNewContext(out.outputFiles[0]?.text as string, sandbox);
      expect(JSON.stringify(sandbox.result)).toBe(JSON.stringify(expected[pkg.name]));
    },
  );
});

// A TypeScript user's project compiled against the installed tarballs: with the pre-exports
// resolution (node10, which reads only `types` and `typesVersions`) and with the ones that read
// `exports`. The @ts-expect-error line fails the compile if the types resolve to `any`.
const TYPED_CONSUMER = `import { type Tensor, tensorArray, tensorFrom } from '@tensorops/core';
import { valueView } from '@tensorops/core/internal';
import { gatherTree } from '@tensorops/gather-tree';
import { decodeNpy, openTensorUrl } from '@tensorops/io';
import { readTensorFile } from '@tensorops/io/node';
import { isHttpUrl } from '@tensorops/io/node/internal';

const ids: BigInt64Array = tensorArray(tensorFrom('int64', [1], [1n]));
// @ts-expect-error an int64 tensor reads as a BigInt64Array, not a Float32Array
const wrong: Float32Array = tensorArray(tensorFrom('int64', [1], [1n]));
const views: Float32Array = valueView(tensorFrom('float32', [1], [1]));
const read: Promise<Tensor> = readTensorFile('x.npy');
export const used = [ids, wrong, views, read, gatherTree, decodeNpy, openTensorUrl, isHttpUrl];
`;

describe.each([
  { resolution: 'node10', module: 'commonjs', file: 'typed.ts' },
  { resolution: 'node16', module: 'node16', file: 'typed.mts' },
  { resolution: 'bundler', module: 'esnext', file: 'typed.ts' },
])('TypeScript with moduleResolution $resolution', ({ resolution, module, file }) => {
  it('finds the types of every entry of the installed libraries', async () => {
    const dir = join(work, `ts-${resolution}`);
    mkdirSync(dir);
    writeFileSync(join(dir, file), TYPED_CONSUMER);
    const tsconfig = {
      compilerOptions: {
        module,
        moduleResolution: resolution,
        target: 'es2022',
        lib: ['es2022', 'dom'],
        strict: true,
        noEmit: true,
        typeRoots: [join(REPO, 'node_modules', '@types')],
        types: ['node'],
      },
      files: [file],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    // The project's node_modules are my-app's: link them in, as a project of its own would have them.
    symlinkSync(join(consumer(), 'node_modules'), join(dir, 'node_modules'), 'dir');
    const tsc = join(REPO, 'node_modules', '.bin', 'tsc');
    await execFileAsync(tsc, ['-p', dir], { env: npmEnv() }).catch((e: { stdout: string }) => {
      throw new Error(`tsc (${resolution}) failed:\n${e.stdout}`);
    });
  }, 120_000);
});

describe('a clean install of the workspace', () => {
  // The manifests and the lockfile are all `pnpm install` reads: a copy of them in a fresh folder
  // is a fresh clone as far as the install goes, and shows the working tree's own settings.
  it('prints no warning (no bin linked to a file not built yet, no box about build scripts)', async () => {
    const clone = join(work, 'fresh-clone');
    for (const f of [
      'package.json',
      'pnpm-workspace.yaml',
      'pnpm-lock.yaml',
      '.npmrc',
      ...PACKAGES.map((p) => `${p.dir}/package.json`),
    ]) {
      mkdirSync(dirname(join(clone, f)), { recursive: true });
      copyFileSync(join(REPO, f), join(clone, f));
    }
    const r = await execFileAsync('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], {
      cwd: clone,
      env: npmEnv(),
      maxBuffer: 1 << 26,
    });
    const said = r.stdout + r.stderr;
    expect(said).toMatch(/^Done in /m);
    expect(said.split('\n').filter((l) => /warn|ignored|approve-builds|ENOENT/i.test(l))).toEqual(
      [],
    );
  }, 180_000);
});

describe('the tensorops bin installed globally (npm i -g) and run from another folder', () => {
  let prefix = '';
  let elsewhere = '';
  let env: NodeJS.ProcessEnv = {};

  beforeAll(() => {
    prefix = globalPrefix();
    elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere);
    for (const f of ['embeddings.npy', 'ids.npy'])
      copyFileSync(join(REPO, 'examples', f), join(elsewhere, f));
    env = globalEnv();
  });

  const tensorops = (args: string[], input?: Buffer) =>
    spawnSync('tensorops', args, {
      cwd: elsewhere,
      env,
      input: input ?? Buffer.alloc(0),
      maxBuffer: 1 << 26,
    });

  it('is linked into the prefix bin directory, pointing at the installed bundle', () => {
    const link = realpathSync(join(prefix, 'bin', 'tensorops'));
    expect(link).toBe(
      realpathSync(join(prefix, 'lib', 'node_modules', 'tensorops', 'dist', 'tensorops.cjs')),
    );
    // Only ink and react (and theirs) come with it: @tensorops/*, yargs and the zip code are bundled.
    const installed = readdirSync(join(prefix, 'lib', 'node_modules', 'tensorops', 'node_modules'));
    expect(installed).toContain('ink');
    expect(installed).toContain('react');
    expect(installed.filter((n) => ['@tensorops', 'yargs', 'yauzl', 'yazl'].includes(n))).toEqual(
      [],
    );
  });

  it('tensorops --version prints the package version', () => {
    const r = tensorops(['--version']);
    expect(r.stderr.toString()).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe(`${pkgJson(CLI.name).version}\n`);
  });

  it('keeps its compiled code in the cache folder after a run, and runs the same with it', () => {
    const first = tensorops(['--version']);
    const cached = readdirSync(join(work, 'code-cache'));
    expect(cached).toHaveLength(1);
    // One file per tensorops version, Node version and set of flags, on every Node line.
    expect(cached[0]).toMatch(/^tensorops-[\w.-]+\.v8cache$/);
    const again = tensorops(['--version']);
    expect(again.stderr.toString()).toBe('');
    expect(again.stdout.toString()).toBe(first.stdout.toString());
  });

  it('gathers rows of a numpy-written .npy file, to a file and through a pipe, bit for bit', () => {
    const toFile = tensorops([
      'gather',
      'embeddings.npy',
      'ids.npy',
      '--axis',
      '0',
      '-o',
      'rows.npy',
    ]);
    expect(toFile.stderr.toString()).toBe('');
    expect(toFile.status).toBe(0);
    const piped = tensorops(
      ['gather', 'embeddings.npy', '-'],
      readFileSync(join(elsewhere, 'ids.npy')),
    );
    expect(piped.status).toBe(0);
    const rows = readFileSync(join(elsewhere, 'rows.npy'));
    expect(Buffer.compare(piped.stdout, rows)).toBe(0);
    // The same gather through the installed libraries gives the same file, byte for byte.
    writeFileSync(
      join(consumer(), 'check-rows.mjs'),
      `import { gather } from '@tensorops/core';
import { encodeNpy } from '@tensorops/io';
import { readTensorFile } from '@tensorops/io/node';
import { readFileSync } from 'node:fs';
const [dir] = process.argv.slice(2);
const want = encodeNpy(gather(await readTensorFile(dir + '/embeddings.npy'), await readTensorFile(dir + '/ids.npy')));
console.log(Buffer.from(want).equals(readFileSync(dir + '/rows.npy')) ? 'same' : 'different');
`,
    );
    expect(node(['check-rows.mjs', elsewhere]).stdout).toBe('same\n');
    const json = tensorops(['gather', 'embeddings.npy', 'ids.npy', '--json']);
    expect(json.stdout.toString()).toBe(
      '{"dtype":"float32","shape":[2,2,4],"data":[[[4.0,4.1,4.2,4.3],[0.0,0.1,0.2,0.3]],[[5.0,5.1,5.2,5.3],[5.0,5.1,5.2,5.3]]]}\n',
    );
    const bad = tensorops(['gather', 'embeddings.npy', 'ids.npy', '--axis', '1']);
    expect(bad.status).toBe(1);
    expect(bad.stdout.length).toBe(0);
    expect(bad.stderr.toString()).toBe(
      'tensorops: error: Gather: index 4 out of range [-4, 3] at indices[0,0] (axis=1)\n',
    );
  });

  it('runs the commands of its README and prints what the README says', () => {
    const readme = readFileSync(join(root(CLI.name), 'README.md'), 'utf8');
    expect(readme).toContain('npm i -g tensorops');
    const block = /```console\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const steps = block.split(/^\$ /m).filter(Boolean);
    // The README makes its inputs with numpy; the tests may not need Python, and @tensorops/io
    // writes the same bytes numpy.save does.
    const [make, ...commands] = steps;
    expect(make).toBe(
      `python3 -c "import numpy as np; np.save('table.npy', np.arange(12, dtype=np.float32).reshape(3, 4)); np.save('ids.npy', np.array([[2, 0], [1, 1]]))"\n`,
    );
    const dir = join(work, 'readme-cli');
    mkdirSync(dir);
    writeFileSync(
      join(consumer(), 'make-readme-inputs.mjs'),
      `import { tensorFrom } from '@tensorops/core';
import { writeTensorFile } from '@tensorops/io/node';
const [dir] = process.argv.slice(2);
await writeTensorFile(dir + '/table.npy', tensorFrom('float32', [3, 4], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
await writeTensorFile(dir + '/ids.npy', tensorFrom('int64', [2, 2], [2n, 0n, 1n, 1n]));
`,
    );
    node(['make-readme-inputs.mjs', dir]);
    expect(commands.length).toBeGreaterThan(3);
    for (const step of commands) {
      const [command = '', ...expected] = step.split('\n');
      const [name, ...args] = command.split(' ');
      expect(name).toBe('tensorops');
      const r = spawnSync('tensorops', args, { cwd: dir, env, encoding: 'utf8' });
      expect(r.stdout + r.stderr, command).toBe(expected.join('\n'));
      expect(r.status, command).toBe(r.stderr ? 1 : 0);
    }
  });

  it('draws the Ink view on a terminal (ink and react resolved from the global install)', () => {
    const r = spawnSync(
      'script',
      ['-qfec', 'tensorops gather embeddings.npy ids.npy --no-color', '/dev/null'],
      {
        cwd: elsewhere,
        env: { ...env, TERM: 'xterm-256color' },
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(0);
    const screen = r.stdout.replaceAll('\r\n', '\n');
    expect(screen.startsWith('gather  float32  [2,2,4]  64 B\n[[[4. , 4.1, 4.2, 4.3],')).toBe(true);
    expect(screen).toContain('min 0.0  max 5.3  mean 3.65  nan 0  +inf 0  -inf 0\n');
  });

  it('writes and reads .npz and .safetensors (the lazily loaded zip chunks ship)', () => {
    expect(tensorops(['convert', 'embeddings.npy', 'e.npz']).status).toBe(0);
    expect(tensorops(['convert', 'e.npz', 'e.safetensors']).status).toBe(0);
    const back = tensorops(['gather', 'e.safetensors', 'ids.npy', '-o', '-']);
    expect(back.status).toBe(0);
    expect(Buffer.compare(back.stdout, readFileSync(join(elsewhere, 'rows.npy')))).toBe(0);
  });
});
