import { createRequire } from 'node:module';

/**
 * Where the built packages keep the schema compiler packages bundled in one CommonJS file, from
 * the module that holds this code (dist/): set by mock-server/tsup.config.ts, absent in sources.
 */
declare const __COMPILER_PACKAGES_MODULE__: string | undefined;

/** The packages {@link loadCompilerPackage} loads. */
export interface CompilerPackages {
  ajv: typeof import('ajv');
  '@fastify/ajv-compiler': typeof import('@fastify/ajv-compiler');
  '@fastify/fast-json-stringify-compiler': typeof import('@fastify/fast-json-stringify-compiler');
}

// Compiling is synchronous, so `require`.
const require = createRequire(import.meta.url);
let bundled: CompilerPackages | undefined;

/**
 * A schema compiler package (Ajv, Fastify's Ajv and fast-json-stringify compilers), loaded
 * synchronously with the first schema to compile, not at start (docs/decisions/0028); the data
 * dir's document checks (store/, off the start path) load Ajv themselves. In the
 * built packages it comes from dist/compiler-packages.cjs, the three bundled in one file: the
 * first request then reads and compiles one file instead of about a hundred (about 30 ms of CPU
 * of a cold start, bench row 7). From sources it comes from node_modules.
 *
 * @example
 * const { Ajv } = loadCompilerPackage('ajv');
 */
export function loadCompilerPackage<K extends keyof CompilerPackages>(
  name: K,
): CompilerPackages[K] {
  if (typeof __COMPILER_PACKAGES_MODULE__ === 'string') {
    bundled ??= require(__COMPILER_PACKAGES_MODULE__) as CompilerPackages;
    return bundled[name];
  }
  return require(name) as CompilerPackages[K];
}
