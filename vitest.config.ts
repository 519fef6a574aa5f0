import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@test\/helpers\//, replacement: here('./test/helpers/') },
      { find: /^@standby-licensing\/sdk\/node$/, replacement: here('./sdk/src/node.ts') },
      {
        find: /^@standby-licensing\/sdk\/testing$/,
        replacement: here('./sdk/src/testing/index.ts'),
      },
      { find: /^@standby-licensing\/sdk$/, replacement: here('./sdk/src/index.ts') },
      {
        find: /^@standby-licensing\/mock-server$/,
        replacement: here('./mock-server/src/index.ts'),
      },
    ],
  },
  test: {
    include: [
      'sdk/src/**/*.test.ts',
      'mock-server/src/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
