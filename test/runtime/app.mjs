// app.mjs: an ES module app on the published packages. It imports every entry that each
// package's `exports` offers under `import`, then runs the app's steps (app-steps.mjs) with what
// it imported. test/runtime/run.ts runs it on every runtime of the matrix, in a consumer project
// that installed the packed tarballs.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { runApp } from './app-steps.mjs';

const started = performance.now();
const require = createRequire(import.meta.url);
const PACKAGES = ['@standby-licensing/sdk', '@standby-licensing/mock-server'];

for (const name of PACKAGES) {
  const manifest = JSON.parse(await readFile(require.resolve(`${name}/package.json`), 'utf8'));
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target !== 'object' || target === null || !('import' in target)) continue;
    const entry = subpath === '.' ? name : `${name}${subpath.slice(1)}`;
    if (Object.keys(await import(entry)).length === 0) throw new Error(`${entry} exports nothing`);
  }
}
const [sdk, sdkNode, testing, { setupServer }] = await Promise.all([
  import('@standby-licensing/sdk'),
  import('@standby-licensing/sdk/node'),
  import('@standby-licensing/sdk/testing'),
  import('msw/node'),
]);
const { rootCertificate: standbyRoot } = await import('./roots/standby-root.mjs');
const { mainRoot } = await import('./roots/main-root.mjs');

await runApp({
  packages: { sdk, sdkNode, testing, setupServer },
  roots: { standbyRoot, mainRoot },
  format: 'esm',
  loadMs: performance.now() - started,
});
