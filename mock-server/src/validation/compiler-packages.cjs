// The schema compiler packages in one module: mock-server/tsup.config.ts bundles this file, with
// Ajv, Fastify's two compilers and their dependencies, into dist/compiler-packages.cjs, which
// load-compiler-package.ts loads from the built packages. One file to read and compile with the
// first request instead of about a hundred (bench row 7). Sources (tsx, tests) never load it.
module.exports = {
  ajv: require('ajv'),
  '@fastify/ajv-compiler': require('@fastify/ajv-compiler'),
  '@fastify/fast-json-stringify-compiler': require('@fastify/fast-json-stringify-compiler'),
};
