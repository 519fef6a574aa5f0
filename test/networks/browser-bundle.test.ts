// The Node-only network code (node-network.ts, the proxy variables' reading, undici) never
// reaches a browser bundle of the BUILT SDK, whatever an app imports, and the import() that
// loads it on Node keeps the comments that tell webpack and Vite to leave it alone. package.json's
// `browser` field keeps out the fence itself (web-fetch.js in its place: the global fetch) and
// the telemetry (node:diagnostics_channel; no-telemetry.js in its place).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureSdkBuilt } from '../helpers/browser/ensure-sdk-built.js';
import { builtInputs } from '../helpers/built-inputs.js';
import { repoRoot } from '../helpers/networks/node-process.js';

const NODE_ONLY =
  /undici|node-network|network-fetch|proxy-environment|proxy-route-error|licensing-telemetry|safe-payload|diagnostics-channel/;

async function bundle(code: string, splitting: boolean) {
  const result = await build({
    stdin: { contents: code, resolveDir: repoRoot, sourcefile: 'app.js', loader: 'js' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    splitting,
    outdir: join(repoRoot, 'bench-bundles'),
    write: false,
    metafile: true,
    logLevel: 'silent',
    tsconfigRaw: {},
  });
  return {
    inputs: builtInputs(result.metafile, 'the browser bundle'),
    text: result.outputFiles.map((file) => file.text).join('\n'),
  };
}

describe('browser bundles of the built SDK', () => {
  beforeAll(async () => {
    await ensureSdkBuilt(repoRoot);
  }, 300_000);

  it.each([
    [
      'the whole main entry',
      "import * as sdk from '@standby-licensing/sdk'; globalThis.app = sdk;",
    ],
    [
      'an events-only app, split',
      "import { createEventClient } from '@standby-licensing/sdk'; globalThis.app = createEventClient;",
    ],
  ])('%s holds no Node-only network code', async (_name, code) => {
    for (const splitting of [false, true]) {
      const { inputs, text } = await bundle(code, splitting);
      expect(inputs.filter((path) => NODE_ONLY.test(path))).toEqual([]);
      expect(inputs).toContain('sdk/dist/internal/platform/web-fetch.js');
      expect(text).not.toMatch(/node:tls|ProxyAgent|diagnostics_channel|tracingChannel/);
    }
  });

  it('puts the stand-ins in a licensing client bundle', async () => {
    const { inputs } = await bundle(
      "import { createLicensingClient } from '@standby-licensing/sdk'; globalThis.app = createLicensingClient;",
      false,
    );
    expect(inputs).toContain('sdk/dist/telemetry/no-telemetry.js');
    expect(inputs).toContain('sdk/dist/internal/platform/web-fetch.js');
    expect(inputs.filter((path) => NODE_ONLY.test(path))).toEqual([]);
  });

  it('loads the Node part with an import() bundlers leave alone', async () => {
    const fence = await readFile(
      join(repoRoot, 'sdk/dist/internal/platform/network-fetch.js'),
      'utf8',
    );
    expect(fence).toMatch(
      /import\(\s*\/\* webpackIgnore: true \*\/\s*\/\* @vite-ignore \*\/\s*specifier\s*\)/,
    );
    const commonJs = await readFile(join(repoRoot, 'sdk/dist/index.cjs'), 'utf8');
    expect(commonJs).toContain('"./internal/platform/node-network.js"');
  });
});
