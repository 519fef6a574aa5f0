// app.cjs: a CommonJS app (an Electron main process, a Jest setup file, a bundled CLI) on the
// published packages. It require()s every entry that each package's `exports` offers under
// `require` (the CommonJS build carries the SDK's ES-only dependencies, decision 12), then runs
// the app's steps (app-steps.mjs) with what it required. test/runtime/run.ts runs it on every
// runtime of the matrix, in a consumer project that installed the packed tarballs.
'use strict';

const { readFileSync } = require('node:fs');

const started = performance.now();
const PACKAGES = ['@standby-licensing/sdk', '@standby-licensing/mock-server'];

/** Every subpath of `name` that its `exports` map offers to `require()`. */
function commonJsEntries(name) {
  const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8'));
  return Object.entries(manifest.exports)
    .filter(([, target]) => typeof target === 'object' && target !== null && 'require' in target)
    .map(([subpath]) => (subpath === '.' ? name : `${name}${subpath.slice(1)}`));
}

for (const name of PACKAGES) {
  for (const entry of commonJsEntries(name)) {
    if (Object.keys(require(entry)).length === 0) throw new Error(`${entry} exports nothing`);
  }
}
const packages = {
  sdk: require('@standby-licensing/sdk'),
  sdkNode: require('@standby-licensing/sdk/node'),
  testing: require('@standby-licensing/sdk/testing'),
  setupServer: require('msw/node').setupServer,
};
const roots = {
  standbyRoot: require('./roots/standby-root.cjs').rootCertificate,
  mainRoot: require('./roots/main-root.cjs').mainRoot,
};
const loadMs = performance.now() - started;

import('./app-steps.mjs')
  .then(({ runApp }) => runApp({ packages, roots, format: 'cjs', loadMs }))
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
