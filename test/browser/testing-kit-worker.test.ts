// The testing kit in a browser: msw's service worker (`setupWorker`, its mockServiceWorker.js
// served from the page's origin, as `npx msw init` would put it in an app's public folder) runs
// the kit's `mainDown` drill. Main is the real mock server's and healthy, so a lease from the
// standby can only mean the worker broke main; the standby's requests pass through the worker to
// the real mock server on another origin.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { TrustedRoot } from '@standby-licensing/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { embedStandbyRoot } from '../helpers/browser/embed-app-roots.js';
import { issueToken } from '../helpers/browser/issue-token.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import type { DrillConfig } from './pages/testing-kit-app.js';

const require = createRequire(import.meta.url);

describe.skipIf(chromiumEndpoint() === null)('testing kit drills on msw’s service worker', () => {
  let mock: RunningServer;
  let fixture: PageFixture;
  let page: Page;
  let standbyRoot: TrustedRoot;
  let idToken: string;
  let controlled: boolean;

  beforeAll(async () => {
    const workerScript = await readFile(require.resolve('msw/mockServiceWorker.js'), 'utf8');
    [mock, fixture] = await Promise.all([
      startServer({ port: 0, state: 'active', apiKey: 'browser-kit-key' }),
      startPageFixture(new URL('./pages/testing-kit-app.ts', import.meta.url), 'kitApp', {
        files: {
          '/mockServiceWorker.js': { type: 'text/javascript; charset=utf-8', body: workerScript },
        },
      }),
    ]);
    [standbyRoot, idToken] = await Promise.all([
      embedStandbyRoot(mock.info.standbyUrl, mock.info.apiKey),
      issueToken(mock.info.idpUrl, { sub: 'qa-user' }),
    ]);
    page = await fixture.open();
    controlled = await page.evaluate(() => window.kitApp.startWorker());
  });

  afterAll(async () => {
    await fixture?.close();
    await mock?.close();
  });

  const drill = (config: Pick<DrillConfig, 'failure' | 'strategy' | 'calls'>) =>
    page.evaluate((arg) => window.kitApp.drill(arg), {
      mainUrl: mock.info.mainUrl,
      standbyUrl: mock.info.standbyUrl,
      // Main never serves in these drills: the app's standby root is all it needs.
      roots: [standbyRoot],
      idToken,
      ...config,
    } satisfies DrillConfig);

  it('registers msw’s worker from the page’s origin, controlling the page', () => {
    expect(controlled).toBe(true);
    expect(fixture.bundle.inputs).toContain('sdk/dist/testing/index.js');
  });

  it('mainDown (refused), Strategy B: the standby serves, then no main request while sticky', async () => {
    const { calls, events } = await drill({
      failure: 'refused',
      strategy: 'B',
      calls: [['ItemA'], ['ItemB']],
    });
    const [first, second] = calls;
    expect(first!.checkout).toEqual({
      ok: true,
      value: [{ item: 'ItemA', servedBy: 'standby', iss: mock.info.standbyUrl }],
    });
    expect(first!.requests.filter((r) => r.service === 'main').map((r) => r.route)).toEqual([
      '/authz/.jwt',
      '/authz/.jwt',
    ]);
    expect(
      first!.requests.filter((r) => r.route === '/authz/.jwt' && r.service === 'standby'),
    ).toHaveLength(1);
    // In a browser a refused connection is a plain network error (msw's HttpResponse.error()).
    expect(events).toEqual([
      'attemptFailed:main:network',
      'attemptFailed:main:network',
      'failover:B',
    ]);

    expect(second!.checkout).toMatchObject({
      ok: true,
      value: [{ item: 'ItemB', servedBy: 'standby' }],
    });
    expect(second!.requests.filter((r) => r.service === 'main')).toEqual([]);
  });

  it('mainDown (503 HTML page), Strategy A: the standby serves', async () => {
    const { calls, events } = await drill({
      failure: 'unavailable',
      strategy: 'A',
      calls: [['ItemA']],
    });
    expect(calls[0]!.checkout).toMatchObject({ ok: true, value: [{ servedBy: 'standby' }] });
    expect(events).toEqual([
      'attemptFailed:main:server-error',
      'attemptFailed:main:server-error',
      'failover:A',
    ]);
  });
});
