import { defineConfig } from 'vitest/config';

// One run over every package. Cross-package imports resolve to the built dist/ through the
// workspace links, so `pnpm test` builds first.
export default defineConfig({
  test: {
    include: ['{packages,apps}/*/{src,test}/**/*.test.{ts,tsx}', 'test/**/*.test.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 30_000,
  },
});
