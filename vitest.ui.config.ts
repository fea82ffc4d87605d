import { defineConfig } from 'vitest/config';

/**
 * `npm run test:ui`: the web page's tests in a real browser (issue 18; test/ui-browser/): Debian's
 * Chromium (`apt-get install chromium`; `.ci/run` installs it) driven by playwright-core, against the
 * page `hnsim ui` serves and the static site `hnsim ui --export` writes. Without Chromium each file
 * skips with a message saying what to install, unless HNSIM_UI_REQUIRED=1 (CI), which makes a
 * missing browser a failure. HNSIM_UPDATE_BASELINES=1 rewrites the screenshot baselines
 * (test/ui-browser/baselines/) instead of comparing with them. One browser per file; files run one
 * at a time (the machine has two cores, and screenshots are steadier on an idle one).
 */
export default defineConfig({
  test: {
    include: ['test/ui-browser/**/*.test.ts'],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
