// The testing kit's fakes in a browser (DECISIONS.md "The testing kit without a server"): the
// outage drill of test/helpers/outage-drill.ts (every named scenario, a dormant standby, a revoked
// item, failback) runs in Chromium on `createFakeLicensing` in msw's service worker, with no server
// and service hosts that do not exist, and meets the same outcomes as on the mock server
// (test/testing-kit/fakes-match-mock.test.ts). The page makes its five RSA keys with WebCrypto.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import { EXPECTED_OUTCOMES } from '../helpers/outage-drill.js';

const require = createRequire(import.meta.url);

describe.skipIf(chromiumEndpoint() === null)('the fakes in msw’s service worker', () => {
  let fixture: PageFixture;
  let page: Page;
  let controlled: boolean;

  beforeAll(async () => {
    const workerScript = await readFile(require.resolve('msw/mockServiceWorker.js'), 'utf8');
    fixture = await startPageFixture(
      new URL('./pages/fake-licensing-app.ts', import.meta.url),
      'fakeApp',
      {
        files: {
          '/mockServiceWorker.js': { type: 'text/javascript; charset=utf-8', body: workerScript },
        },
      },
    );
    page = await fixture.open();
    controlled = await page.evaluate(() => window.fakeApp.start());
  });

  afterAll(async () => {
    await fixture?.close();
  });

  it('bundles the built kit, and its worker controls the page', () => {
    expect(controlled).toBe(true);
    // The built testing entry (bundled per entry: the fakes are inside it, not a file of their own).
    expect(fixture.bundle.inputs).toContain('sdk/dist/testing/index.js');
    expect(fixture.bundle.inputs.some((input) => input.includes('msw/lib/node'))).toBe(false);
  });

  it('meets every drill as on the mock server, with five keys made in the page', async () => {
    const { outcomes, keysMade } = await page.evaluate(() => window.fakeApp.drill());
    expect(outcomes).toEqual(EXPECTED_OUTCOMES);
    expect(keysMade).toBe(5);
  }, 60_000);
});
