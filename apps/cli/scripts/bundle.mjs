// Bundles the tsc output behind the `tensorops` bin into dist/tensorops.js.
// Why: on Node 20 every ES module costs a resolve, a read and a compile at start-up (there is no
// compile cache before Node 22); one file instead of ~60 takes a tiny `tensorops gather` from about
// 3x to about 2x `node -e 0` (measured with scripts/startup-timing.mjs). Dynamic imports stay
// separate chunks, so the pipeline path still never loads the terminal UI, and ink/react stay
// external packages resolved at run time.
import { build } from 'esbuild';

await build({
  entryPoints: { tensorops: 'dist/bin.js' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  minifyWhitespace: true,
  sourcemap: true,
  external: ['ink', 'react', 'react/*', 'ink-*'],
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
