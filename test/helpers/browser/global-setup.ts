// Global setup of the `browser` vitest project: one Chromium for every browser test file (each
// file connects over the DevTools protocol and opens its own context), so the launch cost is
// paid once per run. Vitest calls it only when browser tests are queued.
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { REQUIRE_TOOLS, toolsRequired } from '../system-tools.js';
import { ensureSdkBuilt } from './ensure-sdk-built.js';
import { DEFAULT_CHROMIUM, findChromium } from './find-chromium.js';
import { launchChromium } from './launch-chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DevTools endpoint of the shared Chromium; `null` when there is none (tests skip). */
    chromiumEndpoint: string | null;
  }
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  const executable = findChromium();
  if (executable === undefined) {
    const where = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;
    if (toolsRequired() || process.env.REQUIRE_BROWSER === '1') {
      throw new Error(
        `${REQUIRE_TOOLS}=1 but there is no Chromium at ${where} (Debian: apt-get install chromium)`,
      );
    }
    console.warn(
      `SKIPPING the browser tests (test/browser/): no Chromium at ${where} (Debian: apt-get install chromium, or set CHROMIUM_PATH); ${REQUIRE_TOOLS}=1 makes this a failure (.ci/run sets it)`,
    );
    project.provide('chromiumEndpoint', null);
    return undefined;
  }
  if (await ensureSdkBuilt(repoRoot)) {
    console.log('  browser tests: rebuilt @standby-licensing/sdk (dist was missing or stale)');
  }
  const chromium = await launchChromium(executable);
  console.log(`  browser tests: ${chromium.version} (${executable})`);
  project.provide('chromiumEndpoint', chromium.endpoint);
  return () => chromium.close();
}
