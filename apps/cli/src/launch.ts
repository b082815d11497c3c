#!/usr/bin/env node
// The `tensorops` bin: starts the CLI bundle (tensorops-main.cjs, built from bin.ts) with its
// compiled code cached between runs. Node >= 22.1 caches through module.enableCompileCache;
// Node 20 compiles the bundle as a vm.Script with V8's cachedData (what v8-compile-cache does).
// Any failure of the cache is silent and costs only a normal compile (see code-cache.ts). A large
// gather first starts again with huge pages (see huge-pages.ts).

import { readFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import {
  cacheDirectory,
  cacheFileName,
  cacheKey,
  readCodeCache,
  writeCodeCache,
} from './code-cache.js';
import { relaunchWithHugePages, wantsHugePages } from './huge-pages.js';

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

type CompileCache = (directory?: string) => unknown;

/** Node >= 22.1: node's own loader, with its compile cache in our cache folder. */
function requireMain(directory: string | undefined, enableCompileCache: CompileCache): Main {
  try {
    if (directory !== undefined) enableCompileCache(join(directory, 'node-compile-cache'));
  } catch {}
  return createRequire(import.meta.url)(MAIN) as Main;
}

/** Node 20: the bundle as a vm.Script, with V8's code cache from our cache folder. */
function compileMain(directory: string | undefined): Main {
  // Compiled as it is on disk: wrapping it in a string here would copy all of it once more.
  const source = readFileSync(MAIN, 'utf8');
  let file: string | undefined;
  let key = '';
  let cachedData: Buffer | undefined;
  try {
    if (directory !== undefined) {
      const v = version();
      key = cacheKey({
        version: v,
        bundle: MAIN,
        execArgv: process.execArgv,
        nodeOptions: process.env.NODE_OPTIONS,
      });
      file = join(directory, cacheFileName(v, key));
      cachedData = readCodeCache(file, key);
    }
  } catch {
    file = undefined;
  }
  const script = new Script(source, {
    filename: MAIN,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (file !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    const target = file;
    // After the run, so that the cache holds the functions this run compiled, not just the
    // top level. Not after a signal: the user wants the process gone.
    process.once('exit', (code) => {
      if (code < 128) writeCodeCache(target, key, script.createCachedData());
    });
  }
  return script.runInThisContext() as Main;
}

function start(): void {
  const directory = cacheDirectory(process.env);
  const enableCompileCache = (module as { enableCompileCache?: CompileCache }).enableCompileCache;
  const main =
    typeof enableCompileCache === 'function'
      ? requireMain(directory, enableCompileCache)
      : compileMain(directory);
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

const argv = process.argv.slice(2);
if (wantsHugePages(argv, process.env))
  relaunchWithHugePages(process.argv[1] as string, argv, start);
else start();
