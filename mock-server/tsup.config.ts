import { cp } from 'node:fs/promises';
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

/**
 * The QA console is plain HTML, CSS and JavaScript, shipped as it is: copied next to the bundles
 * (`dist/console/`), where `new URL('./console/', import.meta.url)` finds it from `dist/index.js`,
 * `dist/index.cjs` and `dist/cli.js` alike.
 */
const copyConsole = async () => {
  await cp('src/admin/console', 'dist/console', { recursive: true });
};

export default defineConfig([
  // Declarations once for both formats (.d.ts and .d.cts), so both describe the same API.
  { ...shared, format: ['esm', 'cjs'], dts: { only: true } },
  { ...shared, format: ['esm'], onSuccess: copyConsole },
  // The signing pool's worker module and the QA console's files are found next to the bundle
  // through import.meta.url, which the CommonJS build gets from tsup's shim.
  { ...shared, format: ['cjs'], noExternal: ESM_ONLY_DEPENDENCIES, shims: true },
  {
    // The two bins: the server and the conformance kit (which starts a server when given no
    // target, so it carries one too).
    entry: { cli: 'src/cli.ts', conformance: 'src/conformance/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // Loaded by path in each signing worker thread (src/crypto/signing-pool.ts).
    entry: { 'sign-worker': 'src/crypto/sign-worker.mjs' },
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    target: 'node20',
  },
]);
