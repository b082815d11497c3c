#!/usr/bin/env node
// The `tensorops` bin: starts the CLI bundle (tensorops-main.cjs, built from bin.ts) with its
// compiled code cached between runs: the bundle is compiled as a vm.Script with V8's cachedData
// (what v8-compile-cache does), on every Node line. Node's own module.enableCompileCache (22.1+)
// is not used: it stores the code compiled before the script runs, so every run compiled its
// functions again, while this cache is written after a run and holds them. Any failure of the
// cache is silent and costs only a normal compile (see code-cache.ts).

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import {
  cacheDirectory,
  cacheFileName,
  cacheFileSize,
  cacheKey,
  readCodeCache,
  readFileInto,
  scratchBuffer,
  writeCodeCache,
} from './code-cache.js';

// import.meta.url is this bundle's own file, dist/tensorops.cjs (scripts/bundle.mjs): the CLI
// bundle is beside it, package.json one folder up.
const MAIN = fileURLToPath(new URL('./tensorops-main.cjs', import.meta.url));

/**
 * The bundle loads the terminal UI (dist/ui.mjs, an ES module that imports ink) through this: a
 * vm.Script cannot import() on Node 20 without an experimental flag, this file (bundled as
 * CommonJS, dist/tensorops.cjs) can.
 */
const importModule = (specifier: string): Promise<unknown> => import(specifier);

/**
 * The bundle evaluates to this function (see bundle.mjs): the CommonJS module parameters, plus the
 * import function it loads the UI with.
 */
type Main = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
  loadUI: typeof importModule,
) => void;

function version(): string {
  const pkg = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return String(JSON.parse(pkg).version);
}

/** Where this run's code cache lives: its file, its key, and the file's size now (0: none yet). */
function cacheEntry(
  directory: string | undefined,
): { file: string; key: string; size: number } | undefined {
  if (directory === undefined) return undefined;
  try {
    const v = version();
    const key = cacheKey({
      version: v,
      bundle: MAIN,
      execArgv: process.execArgv,
      nodeOptions: process.env.NODE_OPTIONS,
    });
    const file = join(directory, cacheFileName(v, key));
    return { file, key, size: cacheFileSize(file) };
  } catch {
    return undefined;
  }
}

/** The bundle as a vm.Script, with V8's code cache from our cache folder. */
function compileMain(directory: string | undefined): Main {
  const cache = cacheEntry(directory);
  // One buffer, the size of the larger file: the bundle is read into it and copied into a
  // string, then the code cache is read over it, into pages the first read already touched, and
  // digested there (the buffer is the digest module's memory). Without a cache folder, a plain
  // buffer: the digest module is not even compiled.
  const size = Math.max(statSync(MAIN).size, cache?.size ?? 0);
  const scratch = cache === undefined ? Buffer.allocUnsafeSlow(size) : scratchBuffer(size);
  // The bundle is ASCII (bundle.mjs checks), which latin1 decodes as UTF-8 would, by a copy.
  // It is compiled as it is on disk: wrapping it in a string here would copy all of it again.
  const source = readFileInto(MAIN, scratch).toString('latin1');
  const cachedData = cache && readCodeCache(cache.file, cache.key, scratch);
  const script = new Script(source, {
    filename: MAIN,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    // After the run, so that the cache holds the functions this run compiled, not just the
    // top level. Not after a signal: the user wants the process gone.
    process.once('exit', (code) => {
      if (code < 128) writeCodeCache(cache.file, cache.key, script.createCachedData());
    });
  }
  return script.runInThisContext() as Main;
}

function start(): void {
  const main = compileMain(cacheDirectory(process.env));
  const exports = {};
  main.call(
    exports,
    exports,
    createRequire(MAIN),
    { exports },
    MAIN,
    join(MAIN, '..'),
    importModule,
  );
}

start();
