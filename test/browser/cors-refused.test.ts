// What a web app sees when the licensing services do not allow its origin (CORS): the mock server
// is started with `corsOrigins: ['http://some-other-origin']`, so it answers the page's preflights
// 403 without `Access-Control-Allow-Origin`. The browser then refuses every request before the
// SDK sees an answer: `fetch` rejects with a bare `TypeError: Failed to fetch` (the reason is
// only on the console), which the SDK cannot tell from an outage. It reports reason `network`
// and, when both services refuse the origin, SERVICE_UNAVAILABLE. When only the main service
// lacks CORS, the SDK "fails over" and the app silently runs on the standby. This is why
// docs/browsers-and-electron.md tells deployers which CORS headers each service must send.
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import {
  type AppRoots,
  embedAppRoots,
  embedStandbyRoot,
} from '../helpers/browser/embed-app-roots.js';
import { issueToken } from '../helpers/browser/issue-token.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import type { LicensingAppConfig } from './pages/licensing-app.js';

const ALLOWED_ORIGIN = 'http://some-other-origin';

describe.skipIf(chromiumEndpoint() === null)('a page from an origin the services refuse', () => {
  let refusing: RunningServer;
  let open: RunningServer;
  let fixture: PageFixture;
  let page: Page;
  let roots: AppRoots;
  let openStandbyRoot: AppRoots['standby'];
  let idToken: string;
  let consoleErrors: string[];

  beforeAll(async () => {
    [refusing, open, fixture] = await Promise.all([
      startServer({ port: 0, state: 'active', apiKey: 'cors-key', corsOrigins: [ALLOWED_ORIGIN] }),
      startServer({ port: 0, state: 'active', apiKey: 'open-key' }),
      startPageFixture(new URL('./pages/licensing-app.ts', import.meta.url), 'licensingApp'),
    ]);
    [roots, openStandbyRoot, idToken] = await Promise.all([
      embedAppRoots(refusing.info),
      embedStandbyRoot(open.info.standbyUrl, open.info.apiKey),
      // Both mocks trust their own issuer only: the one token is for the refusing mock.
      issueToken(refusing.info.idpUrl, { sub: 'cors-user' }),
    ]);
    page = await fixture.open();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await fixture?.close();
    await Promise.all([refusing?.close(), open?.close()]);
  });

  beforeEach(() => {
    consoleErrors = [];
  });

  it('the server is up and refuses only the page’s origin (seen from Node, where CORS does not apply)', async () => {
    const { mainUrl } = refusing.info;
    expect((await fetch(`${mainUrl}/.well-known/jwks.json`)).status).toBe(200);
    const preflight = (origin: string) =>
      fetch(`${mainUrl}/authz/.jwt`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
    const refused = await preflight(fixture.served.origin);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(await refused.json()).toMatchObject({ error: 'origin_not_allowed' });
    const allowed = await preflight(ALLOWED_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
  });

  it('both services refuse the origin: SERVICE_UNAVAILABLE, every attempt a bare network error', async () => {
    await page.evaluate((config) => window.licensingApp.start(config), {
      mainUrl: refusing.info.mainUrl,
      standbyUrl: refusing.info.standbyUrl,
      roots: [roots.standby, roots.main],
      idToken: { token: idToken },
      strategy: 'A',
      mainAttempts: 2,
      backoffMs: 1,
    } satisfies LicensingAppConfig);
    const result = await page.evaluate(() => window.licensingApp.checkout(['ItemA']));

    expect(result).toMatchObject({
      ok: false,
      error: {
        name: 'LicensingError',
        code: 'SERVICE_UNAVAILABLE',
        cause: { name: 'AggregateError' },
      },
    });
    const attempts = result.ok ? [] : (result.error.cause?.errors ?? []);
    // Two on main, one on the standby; the browser tells the SDK nothing but "Failed to fetch".
    expect(attempts.map((a) => [a.code, a.cause?.name, a.cause?.message])).toEqual([
      ['SERVICE_UNAVAILABLE', 'TypeError', 'Failed to fetch'],
      ['SERVICE_UNAVAILABLE', 'TypeError', 'Failed to fetch'],
      ['SERVICE_UNAVAILABLE', 'TypeError', 'Failed to fetch'],
    ]);
    expect(
      (await page.evaluate(() => window.licensingApp.events())).map(
        (e) => `${e.name}:${e.service}:${e.reason}`,
      ),
    ).toEqual([
      'attemptFailed:main:network',
      'attemptFailed:main:network',
      'attemptFailed:standby:network',
    ]);
    // The reason is only on the page's console, where the SDK cannot read it.
    // (Console messages reach Node on their own channel: poll until all three are in.)
    await expect
      .poll(() => consoleErrors.filter((text) => /blocked by CORS policy/.test(text)).length)
      .toBe(3);
  });

  it('only main refuses the origin: the SDK takes it for an outage and runs on the standby', async () => {
    const openToken = await issueToken(open.info.idpUrl, { sub: 'cors-user' });
    await page.evaluate((config) => window.licensingApp.start(config), {
      mainUrl: refusing.info.mainUrl,
      standbyUrl: open.info.standbyUrl,
      roots: [openStandbyRoot, roots.main],
      idToken: { token: openToken },
      strategy: 'B',
      mainAttempts: 2,
      backoffMs: 1,
    } satisfies LicensingAppConfig);
    const result = await page.evaluate(() => window.licensingApp.checkout(['ItemA']));
    expect(result).toMatchObject({ ok: true, value: { leases: [{ servedBy: 'standby' }] } });
    expect(
      (await page.evaluate(() => window.licensingApp.events())).map(
        (e) => `${e.name}:${e.strategy ?? e.reason}`,
      ),
    ).toEqual(['attemptFailed:network', 'attemptFailed:network', 'failover:B']);
    expect(await page.evaluate(() => window.licensingApp.activeService())).toBe('standby');
  });
});
