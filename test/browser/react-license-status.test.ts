// The React example in Chromium (DECISIONS.md "App integration (third wave)"): the page is
// examples/react/licensed-app.tsx bundled with esbuild from the BUILT SDK and React, on its own
// origin, against a real mock server on another. Through a drill (main broken from the admin API,
// then repaired) the page shows main, then the standby, then main again, re-rendered by
// `useSyncExternalStore(client.subscribe, client.status)` alone; and when the page goes away,
// `releaseOnPageHide` releases the lease with a keepalive request that the mock's request log
// shows arriving after the page is gone.
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { type AppRoots, embedAppRoots } from '../helpers/browser/embed-app-roots.js';
import { issueToken } from '../helpers/browser/issue-token.js';
import { type PageFixture, startPageFixture } from '../helpers/browser/page-fixture.js';
import type { ReactAppConfig, ShownState } from './pages/react-app.js';

const API_KEY = 'browser-react-key';

interface LogEntry {
  seq: number;
  service: string;
  method: string;
  route: string;
  status: number | null;
  hw?: string;
}

describe.skipIf(chromiumEndpoint() === null)('the React example in Chromium', () => {
  let mock: RunningServer;
  let origin: string;
  let fixture: PageFixture;
  let roots: AppRoots;
  let idToken: string;

  beforeAll(async () => {
    [mock, fixture] = await Promise.all([
      startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY }),
      startPageFixture(new URL('./pages/react-app.ts', import.meta.url), 'reactApp'),
    ]);
    origin = new URL(mock.info.mainUrl).origin;
    [roots, idToken] = await Promise.all([
      embedAppRoots(mock.info),
      issueToken(mock.info.idpUrl, { sub: 'react-user' }),
    ]);
  });

  afterAll(async () => {
    await fixture?.close();
    await mock?.close();
  });

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${origin}/admin${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
    return response;
  };

  const requestsAfter = async (seq: number): Promise<{ entries: LogEntry[]; lastSeq: number }> =>
    (await (await admin('GET', `/requests?after=${seq}`)).json()) as {
      entries: LogEntry[];
      lastSeq: number;
    };

  /** Waits until the page shows `check(state)`; returns that state. */
  const waitShown = async (page: Page, check: (state: ShownState) => boolean, what: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const state = await page.evaluate(() => window.reactApp.now());
      if (check(state)) return state;
      if (Date.now() > deadline) {
        throw new Error(`the page never showed ${what}; it shows ${JSON.stringify(state)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('shows main, the standby during an outage, then main again; releases on pagehide', async () => {
    expect(fixture.bundle.inputs).toContain('sdk/dist/index.js');
    expect(fixture.bundle.inputs).toContain('examples/react/license-status.tsx');
    expect(fixture.bundle.inputs.some((path) => path.includes('node_modules/react-dom/'))).toBe(
      true,
    );

    const page = await fixture.open();
    const config: ReactAppConfig = {
      mainUrl: mock.info.mainUrl,
      standbyUrl: mock.info.standbyUrl,
      roots: [roots.standby, roots.main],
      idToken,
      items: ['ItemA'],
      failover: {
        strategy: 'B',
        mainAttempts: 1,
        backoffBaseMs: 1,
        backoffMaxMs: 1,
        attemptTimeoutMs: 2_000,
        probeIntervalMs: 300,
        probeMaxIntervalMs: 600,
        probeJitterRatio: 0,
      },
      // A drill: renew every half second instead of at refreshAt (6 hours).
      keeper: { maxRefreshIntervalMs: 500, jitterRatio: 0 },
    };
    await page.evaluate((c) => window.reactApp.start(c), config);

    const onMain = (state: ShownState) =>
      state.activeService === 'main' &&
      state.online === 'true' &&
      state.items[0]?.servedBy === 'main';
    const first = await waitShown(page, onMain, 'ItemA licensed via main');
    expect(first.service).toBe('Licensed via the licensing service');
    expect(first.items[0]!.text).toMatch(/^ItemA: licensed via the main service until /);
    expect(first.gate).toBe('The licensed feature is on.');

    await admin('POST', '/faults', { mode: 'error', status: 503 });
    const outage = await waitShown(
      page,
      (s) => s.activeService === 'standby' && s.items[0]?.servedBy === 'standby',
      'ItemA licensed via the standby',
    );
    expect(outage.service).toBe('Licensed via the standby service');
    expect(outage.gate).toBe('The licensed feature is on.');

    await admin('DELETE', '/faults');
    await waitShown(page, onMain, 'ItemA licensed via main again');

    // What the page showed, in order, from the DOM: main, the standby, main; licensed throughout
    // once the first checkout was in.
    const shown = await page.evaluate(() => window.reactApp.shown());
    const services = shown
      .filter((state) => state.online === 'true')
      .map((state) => state.activeService)
      .filter((service, i, all) => service !== all[i - 1]);
    expect(services).toEqual(['main', 'standby', 'main']);
    const licensed = shown.slice(shown.findIndex((state) => state.online === 'true'));
    expect(licensed.every((state) => state.gate === 'The licensed feature is on.')).toBe(true);
    expect(await page.evaluate(() => window.reactApp.status())).toEqual({
      activeService: 'main',
      online: true,
      items: ['ItemA'],
    });

    // The tab goes away: releaseOnPageHide sends one release, keepalive, that lands after it.
    const { lastSeq } = await requestsAfter(0);
    await page.goto('about:blank');
    await page.close();
    const deadline = Date.now() + 10_000;
    let released: LogEntry[] = [];
    while (released.length === 0 && Date.now() < deadline) {
      const { entries } = await requestsAfter(lastSeq);
      // Checkouts and renewals carry hw (the device), a release names only lease ids.
      released = entries.filter(
        (e) => e.route === '/authz/.jwt' && e.method === 'GET' && e.hw === undefined,
      );
      if (released.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(released).toMatchObject([{ service: 'main', status: 200 }]);
  }, 60_000);
});
