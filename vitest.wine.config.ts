import { defineConfig } from 'vitest/config';

/**
 * `npm run test:wine`: the tests that run Windows programs under Wine against the simulator
 * (issue 10; test/wine/). They need Wine and mingw-w64 (`.ci/run` installs them); without them each
 * file skips with a message naming what is missing, unless HNSIM_WINE_REQUIRED=1 (CI), which makes
 * a missing tool a failure. Files run one at a time: Wine processes share one prefix and its
 * wineserver, and the machine has two cores.
 */
export default defineConfig({
  test: {
    include: ['test/wine/**/*.test.ts'],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
