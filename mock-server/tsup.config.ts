import { cp } from 'node:fs/promises';
import { defineConfig, type Options } from 'tsup';

/**
 * Runtime dependencies published only as ES modules: the CommonJS build carries its own copy,
 * so `require('@standby-licensing/mock-server')` works on Node before 20.19 too, as the SDK's
 * does (docs/decisions/0012-self-contained-commonjs-build.md). The ESM build keeps them external.
 */
const ESM_ONLY_DEPENDENCIES = [/^jose(\/|$)/];

/**
 * The wire contract shared with the SDK (wire/, `@standby-licensing/wire`): a private workspace,
 * never published, so every build carries it and package.json lists it as a devDependency only.
 */
const SHARED_WORKSPACES = [/^@standby-licensing\/wire$/];

/**
 * Where the schema compiler packages are bundled in one file (the `compiler-packages` build
 * below), from dist/, the folder of every output that loads them
 * (src/validation/load-compiler-package.ts).
 */
const COMPILER_PACKAGES_MODULE = './compiler-packages.cjs';

/** Packages the bins leave to node_modules: each loads with its first use, after the start. */
const LOADED_ON_FIRST_USE = [
  // Schema compilers: through dist/compiler-packages.cjs (above).
  'ajv',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  // The first token verified, the first certificate made, the first lease signed.
  'jose',
  '@peculiar/x509',
  'reflect-metadata',
  'piscina',
];

const shared: Options = {
  entry: { index: 'src/index.ts' },
  sourcemap: true,
  target: 'node20',
  define: { __COMPILER_PACKAGES_MODULE__: JSON.stringify(COMPILER_PACKAGES_MODULE) },
  noExternal: SHARED_WORKSPACES,
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
  {
    ...shared,
    format: ['cjs'],
    noExternal: [...SHARED_WORKSPACES, ...ESM_ONLY_DEPENDENCIES],
    shims: true,
  },
  {
    // The two bins: the server and the conformance kit (which starts a server when given no
    // target, so it carries one too). They carry what they load at start (Fastify, its plugins
    // and their dependencies: about 150 CommonJS files) bundled: Node then resolves, reads and
    // compiles a few files instead, a third of the CPU to the first answer (bench row 7,
    // docs/decisions/0035-bundled-mock-bins.md). The bundled CommonJS code needs `require` for
    // Node's built-in modules: the banner makes one.
    ...shared,
    entry: { cli: 'src/cli.ts', conformance: 'src/conformance/cli.ts' },
    format: ['esm'],
    // Every package but Node's own and those loaded on first use.
    noExternal: [new RegExp(`^(?!node:|(${LOADED_ON_FIRST_USE.join('|')})(/|$))`)],
    removeNodeProtocol: false,
    banner: {
      js: [
        '#!/usr/bin/env node',
        "import { createRequire as __bundleCreateRequire } from 'node:module';",
        'const require = __bundleCreateRequire(import.meta.url);',
      ].join('\n'),
    },
  },
  {
    // Ajv and Fastify's two schema compilers in one CommonJS file (src/validation/compiler-packages.cjs).
    entry: { 'compiler-packages': 'src/validation/compiler-packages.cjs' },
    format: ['cjs'],
    target: 'node20',
    noExternal: [/./],
    outExtension: () => ({ js: '.cjs' }),
  },
  {
    // Loaded by path in each signing worker thread (src/crypto/signing-pool.ts).
    entry: { 'sign-worker': 'src/crypto/sign-worker.mjs' },
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    target: 'node20',
  },
]);
