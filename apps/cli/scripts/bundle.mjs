// Bundles the tsc output behind the `tensorops` bin into three files:
// - dist/tensorops.cjs: the bin, a small CommonJS script (launch.ts) that runs the next file with
//   its compiled code cached between runs (see code-cache.ts); CommonJS because an ES module entry
//   starts node's ES module loader and builds ES module facades of the builtins it imports (node:fs
//   loads every stream class that way), a cost paid before the first byte is read;
// - dist/tensorops-main.cjs: the CLI (bin.ts and everything it loads), one CommonJS script,
//   because V8's code cache on Node 20 works for scripts (vm.Script), not for ES modules;
// - dist/ui.mjs: the terminal UI, an ES module because it imports ink (an ES module with
//   top-level await, which a script cannot require), loaded only when a tensor is shown on a
//   terminal. ink and react stay external;
// - dist/yauzl.cjs, dist/yazl.cjs: the zip libraries, required only when an .npz is read or
//   written, so that the script every run reads and compiles holds neither. yazl's CRC-32 is
//   Node's own (zlib.crc32) in place of buffer-crc32's table in JavaScript, which cost a stored
//   member more than the writing itself (packages/io/README.md, "Dependencies").
//
// Why a bundle: on Node 20 every ES module costs a resolve, a read and a compile at start-up; one
// file instead of dozens is what makes a single compiled-code cache possible.
//
// Why the string-width wrapper: yargs renders its help text to show it (and, unless told not to,
// before every command: src/args/yargs-help.ts), and string-width compiles large Unicode-property regexes on first use. Our help text is
// printable ASCII, whose width is its length, so the wrapper answers that case and hands
// everything else to the real string-width.
import { rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const asciiFastPath = `
import stringWidth from 'string-width';
export default function asciiFastStringWidth(text, options) {
  if (typeof text === 'string' && /^[\\x20-\\x7e]*$/.test(text)) return text.length;
  return stringWidth(text, options);
}`;

/**
 * Routes every import of string-width (yargs, cliui and wrap-ansi pin different majors with the
 * same API) through the wrapper above, and the wrapper to the copy yargs itself depends on.
 */
const stringWidthFastPath = {
  name: 'string-width-ascii-fast-path',
  setup(b) {
    const yargsDir = dirname(fileURLToPath(import.meta.resolve('yargs')));
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      args.namespace === 'string-width-wrapper'
        ? undefined
        : { path: 'string-width', namespace: 'string-width-wrapper' },
    );
    b.onLoad({ filter: /.*/, namespace: 'string-width-wrapper' }, () => ({
      contents: asciiFastPath,
      resolveDir: yargsDir,
      loader: 'js',
    }));
    // string-width makes an Intl.Segmenter and Unicode-property regexes (`\p{RGI_Emoji}` with
    // the `v` flag) when it is loaded: ICU set-up that is a large part of the CLI's own start-up
    // work, for text the fast path above never hands it. Make each on first use instead; a regex becomes a proxy that builds the real one when first touched.
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      const eager = 'const segmenter = new Intl.Segmenter();';
      if (!source.includes(eager)) throw new Error(`${args.path}: no '${eager}' to make lazy`);
      const lazy =
        'let eagerSegmenter; const segmenter = { segment: (text) => (eagerSegmenter ??= new Intl.Segmenter()).segment(text) };';
      source = source.replace(eager, lazy);
      const regexes = /^const (\w+) = (\/.*\\p\{.*\/[a-z]*);$/gm;
      if (!regexes.test(source)) throw new Error(`${args.path}: no property regexes to make lazy`);
      source = source.replace(regexes, 'const $1 = lazyRegExp(() => $2);');
      const helper =
        'function lazyRegExp(make) { let real; return new Proxy({}, { get(_, key) { real ??= make(); const value = real[key]; return typeof value === "function" ? value.bind(real) : value; } }); }';
      return { contents: `${source}\n${helper}\n`, loader: 'js' };
    });
  },
};

/**
 * yargs checks the argument types of every call made to its API, parsing a signature string each
 * time: a check for the program that calls it, which ours passes by construction (every call it
 * makes runs in the test suite), and a visible part of yargs' share of a small run's start-up.
 */
const yargsArgsertOff = {
  name: 'yargs-argsert-off',
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]build[\\/]lib[\\/]argsert\.js$/ }, () => ({
      contents: 'export function argsert() {}',
      loader: 'js',
    }));
  },
};

/**
 * yargs' platform shim for Node, as bundled. It imports node:assert (a module and its error
 * classes loaded at start-up) for internal checks that hold on every run: the checks are made
 * inline, and node:assert is loaded only to report one that fails. It guesses the app's version
 * (which args/parser.ts then sets) from the package.json above the folder holding node_modules, which in
 * a bundle is the working directory: each run would list every directory from there up to the
 * root, and fail such a check where none holds a package.json. The shim's `__dirname` is the
 * bundle's own path; its package.json is one folder up. It reads the terminal's width when it is
 * loaded, which sets up process.stdout (and loads Node's stream classes) in every run: the width
 * is read when help is rendered instead.
 */
const yargsShimLean = {
  name: 'yargs-shim-lean',
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      const edits = [
        [
          "import { notStrictEqual, strictEqual } from 'assert'",
          `const notStrictEqual = (actual, expected, message) => {
            if (Object.is(actual, expected)) require('node:assert').notStrictEqual(actual, expected, message);
          };
          const strictEqual = (actual, expected, message) => {
            if (!Object.is(actual, expected)) require('node:assert').strictEqual(actual, expected, message);
          };`,
        ],
        [
          "const mainFilename = __dirname.substring(0, __dirname.lastIndexOf('node_modules'));",
          'const mainFilename = __dirname;',
        ],
        [
          "stdColumns: typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null",
          "get stdColumns() { return typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null; }",
        ],
      ];
      for (const [from, to] of edits) {
        if (!source.includes(from)) throw new Error(`${args.path}: no '${from}' to replace`);
        source = source.replace(from, to);
      }
      return { contents: source, loader: 'js' };
    });
  },
};

const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Node 20 has regexp property escapes and the `v` flag; without this esbuild rewrites such
  // literals (string-width's) into eager `new RegExp(...)` calls compiled at every start.
  supported: { 'regexp-set-notation': true, 'regexp-unicode-property-escapes': true },
  minifySyntax: true,
  minifyIdentifiers: true,
  minifyWhitespace: true,
  sourcemap: true,
  external: ['ink', 'react', 'react/*', 'ink-*'],
  plugins: [stringWidthFastPath],
  logLevel: 'warning',
};

/**
 * The CLI's imports of the terminal UI go to dist/ui.mjs, through the function launch.ts hands the
 * script as `loadUI` (a script cannot import() on Node 20). The name has the length of `import`,
 * so the source map's columns stay true after the rename in the output.
 */
const uiThroughLauncher = {
  name: 'ui-through-launcher',
  setup(b) {
    const render = resolve('dist/ui/render.js');
    b.onResolve({ filter: /render\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path) === render
        ? { path: './ui.mjs', external: true }
        : undefined,
    );
  },
};

/** The zip libraries the CLI bundle requires from files of their own beside it (see above). */
const ZIP_LIBRARIES = ['yauzl', 'yazl'];

/**
 * Each import of a zip library becomes a module of one line, `module.exports =
 * require('./NAME.cjs')`, so the bundle keeps its lazy import as a plain require of that file.
 */
const zipLibrariesApart = {
  name: 'zip-libraries-apart',
  setup(b) {
    const names = new RegExp(`^(${ZIP_LIBRARIES.join('|')})$`);
    b.onResolve({ filter: names }, (args) => ({ path: args.path, namespace: 'zip-apart' }));
    b.onLoad({ filter: /.*/, namespace: 'zip-apart' }, (args) => ({
      contents: `module.exports = require('./${args.path}.cjs');`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\.\/[a-z]+\.cjs$/, namespace: 'zip-apart' }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

/**
 * buffer-crc32 as yazl calls it (`unsigned(bytes, previous?)`: the CRC-32 continued from
 * `previous`), answered by zlib.crc32, which computes the same checksum natively.
 */
const crc32FromZlib = {
  name: 'crc32-from-zlib',
  setup(b) {
    b.onResolve({ filter: /^buffer-crc32$/ }, () => ({ path: 'zlib', namespace: 'crc32-zlib' }));
    b.onLoad({ filter: /.*/, namespace: 'crc32-zlib' }, () => ({
      contents:
        "const { crc32 } = require('node:zlib'); module.exports = { unsigned: (bytes, previous) => crc32(bytes, previous ?? 0) };",
      loader: 'js',
    }));
  },
};

for (const stale of [
  'dist/chunks',
  'dist/tensorops.js',
  'dist/tensorops.cjs',
  'dist/tensorops-main.cjs',
  'dist/ui.mjs',
  ...ZIP_LIBRARIES.map((name) => `dist/${name}.cjs`),
])
  rmSync(stale, { recursive: true, force: true });
await build({
  ...shared,
  entryPoints: { tensorops: 'dist/launch/launch.js' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  define: { 'import.meta.url': '__tensoropsLaunchUrl' },
  banner: {
    js: "const __tensoropsLaunchUrl = require('node:url').pathToFileURL(__filename).href;",
  },
});
await build({
  ...shared,
  entryPoints: { 'tensorops-main': 'dist/launch/bin.js' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // The version is read from package.json next to dist/: import.meta.url is the bundle file.
  define: { 'import.meta.url': '__tensoropsMainUrl' },
  // The file is one function expression, CommonJS' module parameters plus loadUI, so the launcher
  // compiles the file as it is on disk (a wrapper added at run time would copy all of it once
  // more). As a script its value is that function. The parentheses make V8 compile it eagerly,
  // into the code cache.
  banner: {
    js:
      '(function (exports, require, module, __filename, __dirname, loadUI) {' +
      "const __tensoropsMainUrl = require('node:url').pathToFileURL(__filename).href;",
  },
  footer: { js: '});' },
  plugins: [
    stringWidthFastPath,
    yargsShimLean,
    yargsArgsertOff,
    uiThroughLauncher,
    zipLibrariesApart,
  ],
});
// Resolved from @tensorops/io, the package that depends on them.
const ioDir = dirname(fileURLToPath(import.meta.resolve('@tensorops/io/package.json')));
for (const name of ZIP_LIBRARIES) {
  await build({
    ...shared,
    stdin: { contents: `module.exports = require('${name}');`, resolveDir: ioDir },
    outfile: `dist/${name}.cjs`,
    format: 'cjs',
    plugins: [...shared.plugins, crc32FromZlib],
  });
}
await build({
  ...shared,
  entryPoints: { ui: 'dist/ui/render.js' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  format: 'esm',
});

const mainFile = 'dist/tensorops-main.cjs';
const main = (await readFile(mainFile, 'utf8')).replaceAll(
  'import("./ui.mjs")',
  'loadUI("./ui.mjs")',
);
for (const forbidden of ['import(', 'require("ink")', 'require("react")']) {
  if (main.includes(forbidden)) throw new Error(`${mainFile} must not contain ${forbidden}`);
}
// The launcher decodes the bundle as latin1, which is UTF-8 only for ASCII (esbuild escapes the
// rest by default): as many UTF-8 bytes as characters.
if (Buffer.byteLength(main) !== main.length) throw new Error(`${mainFile} must be ASCII`);
await writeFile(mainFile, main);
