import { defineConfig, type Options } from 'tsup';

const entry = {
  index: 'src/index.ts',
  node: 'src/node.ts',
  'testing/index': 'src/testing/index.ts',
};

/**
 * Runtime dependencies every build carries (the parts the SDK uses), instead of importing them
 * from the app's node_modules (docs/decisions/0033-bundled-entries.md):
 *
 * - jose, ky, p-retry and is-network-error are published only as ES modules, which Node `require()`s
 *   only from 20.19 / 22.12 on; Electron 30-34 main processes run Node 20.11-20.18, so the
 *   CommonJS build has carried them since decision 12.
 * - asn1js and the @peculiar ASN.1 packages (with pvtsutils, pvutils, tslib) publish CommonJS as
 *   their `main`: Node's ES loader runs each of their files through its CommonJS export lexer.
 *
 * Imported from node_modules, these were about two thirds of the CPU an ES module app spent in the
 * SDK before it could restore a lease (bench row 8): some 70 files resolved, read and compiled.
 * undici stays external (loaded at run time on Node only, by the fence); msw is the testing kit's
 * peer: never bundled, the app's msw must see its own handler classes. jose stays in package.json's
 * `dependencies` only because the declarations name its `JWK` type.
 */
export const BUNDLED_DEPENDENCIES = [
  /^jose(\/|$)/,
  /^ky(\/|$)/,
  /^p-retry(\/|$)/,
  /^is-network-error(\/|$)/,
  /^asn1js$/,
  /^@peculiar\//,
];

/** Where the Node-only fetch is, from dist/ (the folder of the entries and the chunks). */
const NODE_NETWORK_MODULE = './internal/platform/node-network.js';

/**
 * Entries of the ES module build that the package does not export. esbuild splits code by the set
 * of entries that reach it, so each of these puts one client's code in chunks of its own. An app's
 * bundler then drops the chunks of the client it does not use whole (`sideEffects` in package.json
 * lists none of them): an events-only app never holds the licensing transport or the X.509 stack
 * (bench row 6).
 */
const GROUP_ENTRIES = {
  'internal/group-events': 'src/events/create-event-client.ts',
  'internal/group-licensing': 'src/client/create-licensing-client.ts',
};

/**
 * Bundled dependencies come from their ES module builds (the `module` field, tslib's `module`
 * condition), not their CommonJS `main`: tree-shakable, and no `require()` shims in the output.
 */
const preferModuleBuilds: NonNullable<Options['esbuildOptions']> = (options) => {
  options.mainFields = ['module', 'main'];
  options.conditions = ['module'];
};

const shared: Options = {
  entry,
  sourcemap: true,
  target: 'es2022',
  // Keep `node:fs` as written (tsup strips the prefix by default).
  removeNodeProtocol: false,
  external: ['undici', 'msw', 'msw/node'],
  noExternal: BUNDLED_DEPENDENCIES,
  esbuildOptions: preferModuleBuilds,
};

export default defineConfig([
  // Declarations once for both formats (.d.ts and .d.cts), so both describe the same API.
  { ...shared, format: ['esm', 'cjs'], dts: { only: true } },
  {
    // ES modules: each entry bundled, the code entries share in chunks: Node loads about 15 files
    // at an app's start instead of about 130 and jose's, ky's and the X.509 stack's. An app's
    // bundler still drops what the app does not reach (GROUP_ENTRIES), and keeps `import()`ed
    // code (event signing) as a lazy chunk (docs/decisions/0020-lazy-event-signing.md).
    ...shared,
    entry: {
      ...entry,
      ...GROUP_ENTRIES,
      // Loaded at run time by the fence (src/internal/platform/network-fetch.ts) with an
      // `import()` of NODE_NETWORK_MODULE, from the chunk at the root of dist/ that holds the fence.
      'internal/platform/node-network': 'src/internal/platform/node-network.ts',
    },
    format: ['esm'],
    splitting: true,
    define: { __NODE_NETWORK_MODULE__: JSON.stringify(NODE_NETWORK_MODULE) },
  },
  {
    ...shared,
    format: ['cjs'],
    // The Node-only fetch (proxies, tls.ca) is loaded at run time by the fence from
    // dist/index.cjs: the ES module the build above wrote, never bundled into this file.
    define: { __NODE_NETWORK_MODULE__: JSON.stringify(NODE_NETWORK_MODULE) },
    // No `splitting`: tsup's experimental CommonJS splitting rewrites jose's class fields into
    // invalid JavaScript. Each .cjs entry carries what it uses.
  },
  {
    // The `standby-licensing` command (Node only): embed-root and friends.
    ...shared,
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
