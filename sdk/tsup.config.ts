import { defineConfig, type Options } from 'tsup';

const entry = {
  index: 'src/index.ts',
  node: 'src/node.ts',
  'testing/index': 'src/testing/index.ts',
};

/**
 * Runtime dependencies published only as ES modules. `require()` of an ES module works from
 * Node 20.19 / 22.12 on, but Electron 30-34 main processes run Node 20.11-20.18, so the
 * CommonJS build carries its own copy of these (docs/decisions/0012-self-contained-commonjs-build.md).
 * The ESM build keeps them external: bundlers and Node's ESM loader share the app's copy.
 */
export const ESM_ONLY_DEPENDENCIES = [
  /^jose(\/|$)/,
  /^ky(\/|$)/,
  /^p-retry(\/|$)/,
  /^is-network-error(\/|$)/,
];

const shared: Options = {
  entry,
  sourcemap: true,
  target: 'es2022',
  // The testing kit's peer: never bundled, the app's msw must see its own handler classes.
  external: ['msw', 'msw/node'],
};

export default defineConfig([
  // Declarations once for both formats (.d.ts and .d.cts), so both describe the same API.
  { ...shared, format: ['esm', 'cjs'], dts: { only: true } },
  {
    // ES modules one file per source module, as tsc would emit them: an app's bundler then drops
    // every module the app does not reach (`sideEffects` in package.json says it may), e.g. the
    // X.509 parser in an events-only bundle, and keeps `import()`ed modules (event signing) as
    // lazy chunks (docs/decisions/0020-lazy-event-signing.md).
    ...shared,
    entry: ['src/**/*.ts', '!src/**/*.test.ts', '!src/cli/**'],
    format: ['esm'],
    bundle: false,
  },
  {
    ...shared,
    format: ['cjs'],
    noExternal: ESM_ONLY_DEPENDENCIES,
    // The Node-only fetch (proxies, tls.ca) is loaded at run time by the fence
    // (src/internal/platform/network-fetch.ts): from dist/index.cjs, the ES module the build
    // above wrote beside the others, never bundled into this file.
    define: { __NODE_NETWORK_MODULE__: JSON.stringify('./internal/platform/node-network.js') },
    // No `splitting`: tsup's experimental CommonJS splitting rewrites jose's class fields into
    // invalid JavaScript. Each .cjs entry carries what it uses.
  },
  {
    // The `standby-licensing` command (Node only): embed-root and friends.
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
