// The tests a mutation run (`npm run mutation`, stryker.config.mjs) uses: the fast unit tests
// beside the trust code, nothing against the real mock server or the browser, so a run takes
// minutes. Same aliases as vitest.config.ts.
import { relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/**
 * Runs the files that failed last time first, then the quickest: a mutant run stops at the first
 * failure (Stryker's bail), and vitest's own order (slowest first) would make every killed mutant
 * wait for the slowest file that covers it.
 */
class QuickestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const stateOf = (spec: TestSpecification) =>
      cache.getFileTestResults(`${spec.project.name}:${relative(config.root, spec.moduleId)}`);
    return [...files].sort((a, b) => {
      const [stateA, stateB] = [stateOf(a), stateOf(b)];
      if (stateA?.failed !== stateB?.failed) return stateA?.failed ? -1 : 1;
      return (stateA?.duration ?? 0) - (stateB?.duration ?? 0);
    });
  }
}

export default defineConfig({
  resolve: base.resolve ?? {},
  test: {
    include: [
      'sdk/src/lease/**/*.test.ts',
      'sdk/src/internal/**/*.test.ts',
      'sdk/src/client/**/*.test.ts',
      'sdk/src/transport/read-bounded-body.test.ts',
      'sdk/src/options/hardware-id.test.ts',
    ],
    exclude: [
      ...configDefaults.exclude,
      // The keeper's scheduling, through a whole client on msw: no trust file's own test, and its
      // renewals and key checks still running after a test ends count as coverage outside any
      // test, which makes Stryker run every test for each mutant they reach.
      'sdk/src/client/lease-keeper.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { sequencer: QuickestFirst },
  },
});
