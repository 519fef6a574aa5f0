// The tests a mutation run (`npm run mutation`, stryker.config.mjs) uses: the fast unit tests
// beside the trust code, nothing against the real mock server or the browser, so a run takes
// minutes. Same aliases as vitest.config.ts.
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  resolve: base.resolve,
  test: {
    include: [
      'sdk/src/lease/**/*.test.ts',
      'sdk/src/internal/**/*.test.ts',
      'sdk/src/client/**/*.test.ts',
    ],
    exclude: [...configDefaults.exclude],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
