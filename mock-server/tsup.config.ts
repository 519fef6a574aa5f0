import { defineConfig, type Options } from 'tsup';

/**
 * Runtime dependencies published only as ES modules: the CommonJS build carries its own copy,
 * so `require('@standby-licensing/mock-server')` works on Node before 20.19 too, as the SDK's
 * does (docs/decisions/0012-self-contained-commonjs-build.md). The ESM build keeps them external.
 */
const ESM_ONLY_DEPENDENCIES = [/^jose(\/|$)/];

const shared: Options = {
  entry: { index: 'src/index.ts' },
  sourcemap: true,
  target: 'node20',
};

export default defineConfig([
  // Declarations once for both formats (.d.ts and .d.cts), so both describe the same API.
  { ...shared, format: ['esm', 'cjs'], dts: { only: true } },
  { ...shared, format: ['esm'] },
  { ...shared, format: ['cjs'], noExternal: ESM_ONLY_DEPENDENCIES },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
