// The licensing client in Chromium, as a web app uses it: a page on its own origin, bundled from
// the built SDK, calls a real mock server on another origin with the browser's own `fetch`
// (CORS: preflights, exposed headers) and verifies on WebCrypto against roots embedded with
// `embed-root --format esm`. Main healthy: checkout, verify, renew, release. Main broken (admin
// faults, or a closed port): Strategy A and B fail over to the standby, and a 503's
// `Retry-After` reaches the SDK's backoff across origins.
import { createServer } from 'node:net';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { type AppRoots, embedAppRoots } from '../helpers/browser/embed-app-roots.js';
import { writeFilePage } from '../helpers/browser/file-page.js';
import { issueToken } from '../helpers/browser/issue-token.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import { logRequests, type RequestLog } from '../helpers/browser/request-log.js';
import type { LicensingAppConfig } from './pages/licensing-app.js';

const API_KEY = 'browser-licensing-key';

/** A URL on 127.0.0.1 where nothing listens (a port that was free a moment ago). */
async function closedPortUrl(path: string): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}${path}`;
}

describe.skipIf(chromiumEndpoint() === null)('licensing client in Chromium, cross-origin', () => {
  let mock: RunningServer;
  let mockOrigin: string;
  let fixture: PageFixture;
  let roots: AppRoots;
  let idToken: string;
  let page: Page;
  let log: RequestLog;

  beforeAll(async () => {
    [mock, fixture] = await Promise.all([
      startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY }),
      startPageFixture(new URL('./pages/licensing-app.ts', import.meta.url), 'licensingApp'),
    ]);
    mockOrigin = new URL(mock.info.mainUrl).origin;
    [roots, idToken] = await Promise.all([
      embedAppRoots(mock.info),
      issueToken(mock.info.idpUrl, { sub: 'browser-user' }),
    ]);
  });

  afterAll(async () => {
    await fixture?.close();
    await mock?.close();
  });

  beforeEach(async () => {
    page = await fixture.open();
    log = logRequests(fixture.session.context);
  });

  afterEach(async () => {
    log.stop();
    await page.evaluate(() => window.licensingApp.close());
    await page.close();
    await fetch(`${mockOrigin}/admin/faults`, { method: 'DELETE' });
  });

  const setMainFault = async (fault: Record<string, unknown>) => {
    const response = await fetch(`${mockOrigin}/admin/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(fault),
    });
    expect(response.status).toBe(201);
  };

  const start = (config: Partial<LicensingAppConfig> = {}) =>
    page.evaluate((arg) => window.licensingApp.start(arg), {
      mainUrl: mock.info.mainUrl,
      standbyUrl: mock.info.standbyUrl,
      roots: [roots.standby, roots.main],
      idToken: { token: idToken },
      ...config,
    } satisfies LicensingAppConfig);

  const checkout = (items: string[]) =>
    page.evaluate((arg) => window.licensingApp.checkout(arg), items);
  const events = () => page.evaluate(() => window.licensingApp.events());

  it('runs on its own origin with the browser’s own fetch and WebCrypto', async () => {
    const environment = await page.evaluate(() => window.licensingApp.environment());
    expect(environment).toEqual({
      origin: fixture.served.origin,
      secureContext: true,
      subtle: true,
      nativeFetch: true,
    });
    expect(environment.origin).not.toBe(mockOrigin);
    expect(fixture.bundle.inputs).toContain('sdk/dist/index.js');
    // The roots are what the built CLI embedded: the standby's pinned to its new signing key.
    expect(roots.standby.keyId).toEqual(expect.any(String));
    expect(roots.main.pem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
  });

  it('checks out from main, verifies, renews and releases, with an ID token from the issuer', async () => {
    const { mainUrl, standbyUrl, idpUrl } = mock.info;
    await start({ idToken: { issuerUrl: idpUrl, sub: 'browser-user' } });

    const checkedOut = await checkout(['ItemA', 'ItemB']);
    if (!checkedOut.ok) throw new Error(`checkout failed: ${JSON.stringify(checkedOut.error)}`);
    expect(checkedOut.value.denied).toEqual([]);
    expect(checkedOut.value.leases).toMatchObject([
      {
        item: 'ItemA',
        servedBy: 'main',
        claims: { ItemA: true, sub: 'browser-user', iss: mainUrl },
      },
      { item: 'ItemB', servedBy: 'main', claims: { ItemB: true, hw: 'chromium-page' } },
    ]);
    const [leaseA, leaseB] = checkedOut.value.leases as [
      (typeof checkedOut.value.leases)[0],
      (typeof checkedOut.value.leases)[0],
    ];

    const verified = await page.evaluate(
      (token) => window.licensingApp.verify(token),
      leaseA.token,
    );
    expect(verified).toMatchObject({
      ok: true,
      value: { item: 'ItemA', leaseId: leaseA.leaseId, servedBy: 'main' },
    });

    const renewed = await page.evaluate((id) => window.licensingApp.renew(id), leaseA.leaseId);
    expect(renewed).toMatchObject({
      ok: true,
      value: { item: 'ItemA', leaseId: leaseA.leaseId, servedBy: 'main' },
    });

    const released = await page.evaluate(
      (ids) => window.licensingApp.release(ids),
      [leaseA.leaseId, leaseB.leaseId],
    );
    expect(released).toEqual({ ok: true, value: null });

    expect(await events()).toEqual([]);
    // The page's OIDC stand-in was asked once; the SDK cached the token across the calls.
    expect(await page.evaluate(() => window.licensingApp.idTokenRequests())).toBe(1);
    const requests = await log.to(mockOrigin);
    expect(
      requests.filter((r) => r.url.startsWith(`${mainUrl}/authz/`)).length,
    ).toBeGreaterThanOrEqual(3);
    expect(requests.filter((r) => r.url.startsWith(`${idpUrl}/token`))).toHaveLength(1);
    expect(requests.filter((r) => r.url.startsWith(standbyUrl))).toEqual([]);
    // Every call crossed origins: the browser sent the page's Origin (and let the SDK read the answer).
    expect(
      requests.every((r) => r.origin === fixture.served.origin && r.resourceType === 'fetch'),
    ).toBe(true);
  });

  it('Strategy A: main answers 503, the lease comes from the standby', async () => {
    await setMainFault({ mode: 'error', status: 503 });
    await start({ strategy: 'A', mainAttempts: 2, backoffMs: 1 });

    const result = await checkout(['ItemA']);
    expect(result).toMatchObject({
      ok: true,
      value: {
        leases: [{ item: 'ItemA', servedBy: 'standby', claims: { iss: mock.info.standbyUrl } }],
      },
    });
    expect(await events()).toEqual([
      {
        name: 'attemptFailed',
        service: 'main',
        attempt: 1,
        reason: 'server-error',
        retryInMs: expect.any(Number),
        errorCode: 'SERVICE_UNAVAILABLE',
      },
      {
        name: 'attemptFailed',
        service: 'main',
        attempt: 2,
        reason: 'server-error',
        errorCode: 'SERVICE_UNAVAILABLE',
      },
      { name: 'failover', strategy: 'A', reason: 'server-error' },
    ]);
    // The standby's lease verifies in the page against the standby's embedded root.
    const token = result.ok ? result.value.leases[0]!.token : '';
    expect(await page.evaluate((t) => window.licensingApp.verify(t), token)).toMatchObject({
      ok: true,
      value: { servedBy: 'standby' },
    });
  });

  it('Strategy B: main resets connections, the standby serves and stays sticky', async () => {
    const { mainUrl, standbyUrl } = mock.info;
    await setMainFault({ mode: 'reset' });
    await start({ strategy: 'B', mainAttempts: 2, backoffMs: 1 });

    const first = await checkout(['ItemA']);
    expect(first).toMatchObject({ ok: true, value: { leases: [{ servedBy: 'standby' }] } });
    // A browser hides why a request failed: a reset is a plain network error to the SDK.
    expect(await events()).toEqual([
      {
        name: 'attemptFailed',
        service: 'main',
        attempt: 1,
        reason: 'network',
        retryInMs: expect.any(Number),
        errorCode: 'SERVICE_UNAVAILABLE',
      },
      {
        name: 'attemptFailed',
        service: 'main',
        attempt: 2,
        reason: 'network',
        errorCode: 'SERVICE_UNAVAILABLE',
      },
      { name: 'failover', strategy: 'B', reason: 'network' },
    ]);
    expect(await page.evaluate(() => window.licensingApp.activeService())).toBe('standby');

    log.clear();
    const second = await checkout(['ItemB']);
    expect(second).toMatchObject({
      ok: true,
      value: { leases: [{ item: 'ItemB', servedBy: 'standby' }] },
    });
    expect(await log.to(mainUrl)).toEqual([]);
    expect((await log.to(`${standbyUrl}/authz/.jwt`)).length).toBe(1);
  });

  it('Strategy A: main at a closed port, the lease comes from the standby', async () => {
    await start({
      mainUrl: await closedPortUrl('/main'),
      strategy: 'A',
      mainAttempts: 2,
      backoffMs: 1,
    });
    const result = await checkout(['ItemA']);
    expect(result).toMatchObject({ ok: true, value: { leases: [{ servedBy: 'standby' }] } });
    expect((await events()).map((e) => `${e.name}:${e.reason ?? ''}`)).toEqual([
      'attemptFailed:network',
      'attemptFailed:network',
      'failover:network',
    ]);
  });

  it('reads Retry-After cross-origin: a 503 with Retry-After: 1 waits 1000 ms before the next attempt', async () => {
    await setMainFault({ mode: 'error', status: 503, retryAfterSeconds: 1 });
    // Backoff 1 ms: any longer wait can only come from the header.
    await start({ strategy: 'A', mainAttempts: 2, backoffMs: 1 });
    const result = await checkout(['ItemA']);
    expect(result).toMatchObject({ ok: true, value: { leases: [{ servedBy: 'standby' }] } });
    expect((await events())[0]).toEqual({
      name: 'attemptFailed',
      service: 'main',
      attempt: 1,
      reason: 'server-error',
      retryInMs: 1000,
      errorCode: 'SERVICE_UNAVAILABLE',
    });
  });

  it('caps a long Retry-After at retryAfterMaxMs', async () => {
    await setMainFault({ mode: 'error', status: 503, retryAfterSeconds: 3600 });
    await start({ strategy: 'A', mainAttempts: 2, backoffMs: 1, retryAfterMaxMs: 200 });
    const result = await checkout(['ItemA']);
    expect(result).toMatchObject({ ok: true, value: { leases: [{ servedBy: 'standby' }] } });
    expect((await events())[0]).toMatchObject({
      name: 'attemptFailed',
      attempt: 1,
      retryInMs: 200,
    });
  });

  it('a file:// page (an Electron window from loadFile) sends Origin: null and still checks out', async () => {
    // The service allows any origin here, so it echoes `null`; a service with an origin list
    // must list `null` for such a page, which any sandboxed page could then claim too.
    const filePage = await writeFilePage(fixture.bundle.code);
    const local = await fixture.session.context.newPage();
    try {
      await local.goto(filePage.url);
      await local.waitForFunction(() => 'licensingApp' in window);
      expect(await local.evaluate(() => window.licensingApp.environment())).toMatchObject({
        origin: 'file://',
        secureContext: true,
        subtle: true,
      });
      await local.evaluate((config) => window.licensingApp.start(config), {
        mainUrl: mock.info.mainUrl,
        standbyUrl: mock.info.standbyUrl,
        roots: [roots.standby, roots.main],
        idToken: { token: idToken },
      } satisfies LicensingAppConfig);
      const result = await local.evaluate(() => window.licensingApp.checkout(['ItemA']));
      expect(result).toMatchObject({ ok: true, value: { leases: [{ servedBy: 'main' }] } });
      const requests = await log.to(mockOrigin);
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.every((r) => r.origin === 'null')).toBe(true);
    } finally {
      await local.evaluate(() => window.licensingApp.close());
      await local.close();
      await filePage.close();
    }
  });
});
