import { defineConfig } from 'vitest/config';

// `npm test --workspace wire`: this package's own tests, alone.
export default defineConfig({
  test: { name: 'wire', include: ['src/**/*.test.ts'] },
});
