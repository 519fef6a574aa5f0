// Offline restart in a browser: a page keeps its leases in localStorage
// (`createWebStorageLeaseStore()`), the licensing services go away (the mock server is closed),
// the page reloads, and `client.restore()` gives the leases back, verified on WebCrypto against
// the saved JWK sets and the embedded roots, without a single request. A clock set back is then
// refused with CLOCK_ROLLBACK. The tests run in order: each continues the story of the last.
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { type AppRoots, embedAppRoots } from '../helpers/browser/embed-app-roots.js';
import { issueToken } from '../helpers/browser/issue-token.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import { logRequests, type RequestLog } from '../helpers/browser/request-log.js';
import type { LeaseReport, LicensingAppConfig } from './pages/licensing-app.js';

describe.skipIf(chromiumEndpoint() === null)('lease store across a page reload, offline', () => {
  let mock: RunningServer;
  let mockOrigin: string;
  let fixture: PageFixture;
  let page: Page;
  let log: RequestLog;
  let config: LicensingAppConfig;
  let checkedOut: LeaseReport[] = [];

  beforeAll(async () => {
    [mock, fixture] = await Promise.all([
      startServer({ port: 0, state: 'active', admin: true, apiKey: 'browser-store-key' }),
      startPageFixture(new URL('./pages/licensing-app.ts', import.meta.url), 'licensingApp'),
    ]);
    mockOrigin = new URL(mock.info.mainUrl).origin;
    const [roots, token]: [AppRoots, string] = await Promise.all([
      embedAppRoots(mock.info),
      issueToken(mock.info.idpUrl, { sub: 'offline-user' }),
    ]);
    config = {
      mainUrl: mock.info.mainUrl,
      standbyUrl: mock.info.standbyUrl,
      roots: [roots.standby, roots.main],
      idToken: { token },
      strategy: 'A',
      mainAttempts: 1,
      leaseStore: 'local-storage',
    };
    log = logRequests(fixture.session.context);
    page = await fixture.open();
  });

  afterAll(async () => {
    log?.stop();
    await fixture?.close();
    await mock?.close();
  });

  const start = (overrides: Partial<LicensingAppConfig> = {}) =>
    page.evaluate((arg) => window.licensingApp.start(arg), { ...config, ...overrides });

  it('keeps a main lease and a standby lease in localStorage', async () => {
    await start();
    const fromMain = await page.evaluate(() => window.licensingApp.checkout(['ItemA']));
    // Main breaks for one call: the second lease comes from the standby (its JWKS is kept too).
    const fault = await fetch(`${mockOrigin}/admin/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ mode: 'error', status: 503, count: 1 }),
    });
    expect(fault.status).toBe(201);
    const fromStandby = await page.evaluate(() => window.licensingApp.checkout(['ItemB']));
    if (!fromMain.ok || !fromStandby.ok) {
      throw new Error(`checkout failed: ${JSON.stringify([fromMain, fromStandby])}`);
    }
    checkedOut = [...fromMain.value.leases, ...fromStandby.value.leases];
    expect(checkedOut.map((lease) => [lease.item, lease.servedBy])).toEqual([
      ['ItemA', 'main'],
      ['ItemB', 'standby'],
    ]);
    const stored = await page.evaluate(() => window.licensingApp.storedState());
    for (const lease of checkedOut) expect(stored).toContain(lease.token);
  });

  it('restores both leases after a reload with the services gone, without a request', async () => {
    await mock.close();
    log.clear();
    await page.reload();
    await page.waitForFunction(() => 'licensingApp' in window);
    await start();

    const restored = await page.evaluate(() => window.licensingApp.restore());
    expect(restored).toMatchObject({
      ok: true,
      value: checkedOut.map(({ item, leaseId, servedBy, token }) => ({
        item,
        leaseId,
        servedBy,
        token,
      })),
    });
    // Only the page itself was loaded: not one request (nor a preflight) to the services.
    const requests = await log.entries();
    expect(requests.map((r) => new URL(r.url).pathname)).toEqual(['/', '/page.js']);
    expect(requests.every((r) => r.url.startsWith(fixture.served.origin))).toBe(true);
    expect(await page.evaluate(() => window.licensingApp.events())).toEqual([]);
  });

  it('really is offline: a checkout now fails with SERVICE_UNAVAILABLE', async () => {
    const result = await page.evaluate(() => window.licensingApp.checkout(['ItemC']));
    expect(result).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('refuses a clock set back two hours with CLOCK_ROLLBACK, still offline', async () => {
    log.clear();
    await start({ clockOffsetMs: -2 * 3_600_000 });
    const restored = await page.evaluate(() => window.licensingApp.restore());
    expect(restored).toMatchObject({ ok: false, error: { code: 'CLOCK_ROLLBACK' } });
    expect(await log.entries()).toEqual([]);
    // The leases were not thrown away: with the clock right again they are back.
    await start();
    const again = await page.evaluate(() => window.licensingApp.restore());
    expect(again.ok && again.value.map((lease) => lease.leaseId)).toEqual(
      checkedOut.map((lease) => lease.leaseId),
    );
  });
});
