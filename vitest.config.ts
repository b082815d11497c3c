import { defineConfig } from 'vitest/config';

// One run over every package, in projects a newcomer can run apart:
// - unit: the libraries and the CLI's modules in-process (real files, real local servers), every
//   file of a worker sharing one module registry, which halves the project's time;
// - unit-fresh: the terminal views, each file in a fresh registry: chalk (inside Ink) fixes its
//   colour level when first imported, and these tests set the environment it reads first;
// - e2e: tests that spawn the built CLI;
// - slow: packing and installing the packages, headless Chromium, the hostile-input stress run.
// Cross-package imports resolve to the built dist/ through the workspace links, so every project
// needs `pnpm build` first (`pnpm test` builds).
const E2E = [
  'apps/cli/test/**/*.test.{ts,tsx}',
  'test/readme.test.ts',
  'test/bench-checks.test.ts',
];
const FRESH = ['apps/cli/src/ui/**/*.test.{ts,tsx}'];
const SLOW = ['test/packaging.test.ts', 'test/stress.test.ts', 'packages/io/test/browser.test.ts'];
const ALL = ['{packages,apps}/*/{src,test}/**/*.test.{ts,tsx}', 'test/**/*.test.ts'];

export default defineConfig({
  test: {
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ALL, exclude: [...E2E, ...SLOW, ...FRESH], isolate: false },
      },
      { extends: true, test: { name: 'unit-fresh', include: FRESH } },
      { extends: true, test: { name: 'e2e', include: E2E } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
