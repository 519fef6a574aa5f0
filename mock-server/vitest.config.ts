import { defineConfig } from 'vitest/config';

// The mock server's own tests, alone: `npm test --workspace mock-server`. Each sits beside the
// file it tests in src/; their helpers are in test/helpers/. Nothing here imports the repo's
// top-level test/ (dependency-cruiser's package-not-repo-tests), so the package tests on its own;
// the root `npm test` runs this project with the others.
export default defineConfig({
  test: {
    name: 'mock-server',
    include: ['src/**/*.test.ts'],
    // The same budget as the root config: real servers, real sockets, generated RSA keys.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
