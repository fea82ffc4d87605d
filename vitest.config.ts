import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the Wine suite needs Wine and mingw-w64: `npm run test:wine` (vitest.wine.config.ts); the
    // real-OVS peer needs Open vSwitch: `npm run test:ovs` (vitest.ovs.config.ts); the web page's
    // browser tests need Chromium: `npm run test:ui` (vitest.ui.config.ts)
    exclude: [...configDefaults.exclude, 'test/wine/**', 'test/ovs/peer/**', 'test/ui-browser/**'],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 60_000,
    pool: 'threads',
    // one worker per core (vitest's default leaves one core idle: one worker on a 2-core machine),
    // and each worker keeps the module graph it has loaded between files: importing the simulator
    // once per worker instead of once per file took import time from ~125 s to ~20 s (issue 15).
    // Nothing in src/ or test/ may rely on a fresh module per file.
    maxWorkers: Math.max(1, availableParallelism()),
    isolate: false,
  },
});
