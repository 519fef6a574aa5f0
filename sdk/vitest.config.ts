import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The SDK's own tests, alone: `npm test --workspace sdk`. Each sits beside the file it tests in
// src/; their helpers are in test/helpers/. Nothing here imports the repo's top-level test/ or the
// mock server (dependency-cruiser's package-not-repo-tests and sdk-not-mock-server): tests of the
// SDK against a running mock server live in the repo's test/. The root `npm test` runs this
// project with the others.
export default defineConfig({
  resolve: {
    // The SDK's own entries by name (its examples and the testing kit's tests import them so),
    // from the sources rather than a build.
    alias: [
      { find: /^@standby-licensing\/sdk\/node$/, replacement: here('./src/node.ts') },
      { find: /^@standby-licensing\/sdk\/testing$/, replacement: here('./src/testing/index.ts') },
      { find: /^@standby-licensing\/sdk$/, replacement: here('./src/index.ts') },
    ],
  },
  test: {
    name: 'sdk',
    include: ['src/**/*.test.ts'],
    // The same budget as the root config: real sockets, generated RSA keys, WebCrypto.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
