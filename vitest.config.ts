import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@test\/helpers\//, replacement: here('./test/helpers/') },
      { find: /^@sdk-test\/helpers\//, replacement: here('./sdk/test/helpers/') },
      { find: /^@standby-licensing\/sdk\/node$/, replacement: here('./sdk/src/node.ts') },
      {
        find: /^@standby-licensing\/sdk\/testing$/,
        replacement: here('./sdk/src/testing/index.ts'),
      },
      { find: /^@standby-licensing\/sdk$/, replacement: here('./sdk/src/index.ts') },
      { find: /^@standby-licensing\/wire$/, replacement: here('./wire/src/index.ts') },
      {
        find: /^@standby-licensing\/mock-server$/,
        replacement: here('./mock-server/src/index.ts'),
      },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      // The packages that test on their own (npm test --workspace <name>), each its project.
      'wire/vitest.config.ts',
      'sdk/vitest.config.ts',
      'mock-server/vitest.config.ts',
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/browser/**'],
        },
      },
      {
        // Real Chromium (Debian's package) driven by playwright-core, one browser shared by every
        // file: launched by the global setup only when browser tests are queued. Without a
        // browser they skip, saying so; REQUIRE_TOOLS=1 (.ci/run) makes that a failure, as it does
        // for tinyproxy and curl (test/helpers/system-tools.ts).
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/helpers/browser/global-setup.ts'],
        },
      },
    ],
  },
});
