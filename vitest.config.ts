import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the Wine suite needs Wine and mingw-w64: `npm run test:wine` (vitest.wine.config.ts)
    exclude: [...configDefaults.exclude, 'test/wine/**'],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 60_000,
    pool: 'threads',
  },
});
