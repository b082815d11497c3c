// Bundles the tsc output behind the `tensorops` bin into dist/tensorops.js.
//
// Why a bundle: on Node 20 every ES module costs a resolve, a read and a compile at start-up (no
// compile cache before Node 22); one file instead of ~60 cut a tiny `tensorops gather` from ~3x to
// ~2x `node -e 0` (scripts/startup-timing.mjs). Dynamic imports stay separate chunks, so the
// pipeline path never loads the terminal UI or the zip library; ink and react stay external.
//
// Why the string-width wrapper: yargs renders its help text after every command (to cache it),
// and string-width compiles large Unicode-property regexes on first use: ~50 ms of CPU per run,
// measured with /usr/bin/time. Our help text is printable ASCII, whose width is its length, so
// the wrapper answers that case and hands everything else to the real string-width.
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
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
    // string-width makes an Intl.Segmenter when it is loaded: 5-8 ms of ICU set-up at every
    // start, for text the fast path above never hands it. Make it on first use instead.
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const eager = 'const segmenter = new Intl.Segmenter();';
      if (!source.includes(eager)) throw new Error(`${args.path}: no '${eager}' to make lazy`);
      const lazy =
        'let eagerSegmenter; const segmenter = { segment: (text) => (eagerSegmenter ??= new Intl.Segmenter()).segment(text) };';
      return { contents: source.replace(eager, lazy), loader: 'js' };
    });
  },
};

rmSync('dist/chunks', { recursive: true, force: true });
await build({
  entryPoints: { tensorops: 'dist/bin.js' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Node 20 has regexp property escapes and the `v` flag; without this esbuild rewrites such
  // literals (string-width's) into eager `new RegExp(...)` calls compiled at every start.
  supported: { 'regexp-set-notation': true, 'regexp-unicode-property-escapes': true },
  minifySyntax: true,
  minifyWhitespace: true,
  sourcemap: true,
  external: ['ink', 'react', 'react/*', 'ink-*'],
  chunkNames: 'chunks/[name]-[hash]',
  // yauzl/yazl (the .npz zip code, loaded on first use) are CommonJS and call require('fs'):
  // an ESM bundle has no `require` unless it makes one.
  banner: {
    js: "import { createRequire as __tensoropsRequire } from 'node:module'; const require = __tensoropsRequire(import.meta.url);",
  },
  plugins: [stringWidthFastPath],
  logLevel: 'warning',
});
