import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { type CompilerPackages, loadCompilerPackage } from './load-compiler-package.js';

const require = createRequire(import.meta.url);

describe('loadCompilerPackage (from sources)', () => {
  it.each(['ajv', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'] as const)(
    'loads %s from node_modules, the module require() gives',
    (name: keyof CompilerPackages) => {
      expect(loadCompilerPackage(name)).toBe(require(name));
    },
  );
});
