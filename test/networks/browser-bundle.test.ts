// The Node-only network code (node-network.ts, the proxy variables' reading, undici) never
// reaches a browser bundle of the BUILT SDK, whatever an app imports, and the import() that
// loads it on Node keeps the comments that tell webpack and Vite to leave it alone.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureSdkBuilt } from '../helpers/browser/ensure-sdk-built.js';
import { builtInputs } from '../helpers/built-inputs.js';
import { repoRoot } from '../helpers/networks/node-process.js';

const NODE_ONLY = /undici|node-network|proxy-environment|proxy-route-error/;

/** The path the fence's `import()` names in the built files (sdk/tsup.config.ts). */
const NODE_NETWORK_MODULE = './internal/platform/node-network.js';

/**
 * The ES module of the built SDK that holds the fence (network-fetch.ts): the entries are bundled,
 * so it is the chunk whose text carries the fence's `import()`. Repository-relative.
 */
async function fenceModule(): Promise<string> {
  const dist = join(repoRoot, 'sdk/dist');
  const holders: string[] = [];
  for (const name of await readdir(dist)) {
    // The `standby-licensing` command (Node only, its own bundle) carries its own copy.
    if (!name.endsWith('.js') || name === 'cli.js') continue;
    // The telemetry's own run-time import() (node:diagnostics_channel) carries the same comments.
    const text = await readFile(join(dist, name), 'utf8');
    if (text.includes('webpackIgnore: true') && text.includes(NODE_NETWORK_MODULE)) {
      holders.push(`sdk/dist/${name}`);
    }
  }
  expect(holders).toHaveLength(1);
  return holders[0]!;
}

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
    const fence = await fenceModule();
    for (const splitting of [false, true]) {
      const { inputs, text } = await bundle(code, splitting);
      expect(inputs.filter((path) => NODE_ONLY.test(path))).toEqual([]);
      expect(inputs).toContain(fence);
      // No Node module is imported: the telemetry finds `node:diagnostics_channel` at run time
      // (process.getBuiltinModule, or an import() of a run-time string), never by an import.
      expect(text).not.toMatch(/node:tls|ProxyAgent/);
      expect(text).not.toMatch(/from\s*["']node:|require\(\s*["']node:|import\(\s*["']node:/);
    }
  });

  it('loads the Node part with an import() bundlers leave alone, from a path that exists', async () => {
    const fenceFile = join(repoRoot, await fenceModule());
    const fence = await readFile(fenceFile, 'utf8');
    expect(fence).toMatch(
      /import\(\s*\/\* webpackIgnore: true \*\/\s*\/\* @vite-ignore \*\/\s*specifier\s*\)/,
    );
    // The specifier is relative to the module that imports it: the chunk (ESM) and index.cjs.
    expect(fence).toContain(JSON.stringify(NODE_NETWORK_MODULE));
    expect(existsSync(resolve(dirname(fenceFile), NODE_NETWORK_MODULE))).toBe(true);
    const commonJsFile = join(repoRoot, 'sdk/dist/index.cjs');
    const commonJs = await readFile(commonJsFile, 'utf8');
    expect(commonJs).toContain(JSON.stringify(NODE_NETWORK_MODULE));
    expect(existsSync(resolve(dirname(commonJsFile), NODE_NETWORK_MODULE))).toBe(true);
  });
});
