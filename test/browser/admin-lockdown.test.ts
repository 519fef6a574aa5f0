// The admin API is not open to other sites (DECISIONS.md "The mock server for QA and CI"), seen
// from real Chromium pages. Chromium runs with `--host-resolver-rules` so that `evil.test` (any
// port) resolves to 127.0.0.1: a page at http://evil.test:<port> is a foreign origin to the
// browser although it is served from this machine, which is exactly a site the developer happens
// to visit, and a page served by the mock itself under that name is a DNS-rebinding attack
// (the browser thinks evil.test is the page's own origin, the request lands on the mock).
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumEndpoint } from '../helpers/browser/connect-browser.js';
import { findChromium } from '../helpers/browser/find-chromium.js';
import { type LaunchedChromium, launchChromium } from '../helpers/browser/launch-chromium.js';
import { type ServedPage, servePage } from '../helpers/browser/serve-page.js';

/** What a page's `fetch` met: `status body`, or the error a blocked request rejects with. */
type Met = string;

describe.skipIf(chromiumEndpoint() === null)('the admin API from Chromium pages', () => {
  let mock: RunningServer;
  let mockPort: string;
  let adminUrl: string;
  let served: ServedPage;
  let servedPort: string;
  let launched: LaunchedChromium;
  let browser: Browser;

  beforeAll(async () => {
    mock = await startServer({ port: 0, admin: true, state: 'active' });
    mockPort = new URL(mock.info.mainUrl).port;
    adminUrl = mock.info.mainUrl.replace(/\/main$/, '/admin');
    served = await servePage('', 'a page the developer happens to visit');
    servedPort = new URL(served.origin).port;
    launched = await launchChromium(findChromium()!, {
      extraFlags: ['--host-resolver-rules=MAP evil.test 127.0.0.1'],
    });
    browser = await chromium.connectOverCDP(launched.endpoint);
  });
  afterAll(async () => {
    await browser?.close();
    await launched?.close();
    await served?.close();
    await mock?.close();
  });

  async function openPage(url: string): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(url);
    expect(response?.ok()).toBe(true);
    return page;
  }

  /** Runs `fetch(url, init)` in the page; resolves with what the page could see. */
  const pageFetch = (page: Page, url: string, init: RequestInit = {}): Promise<Met> =>
    page.evaluate(
      async ([target, options]) => {
        try {
          const response = await fetch(target, options);
          if (response.type === 'opaque') return 'opaque';
          return `${response.status} ${await response.text()}`;
        } catch (error) {
          return `blocked: ${(error as Error).name}`;
        }
      },
      [url, init] as const,
    );

  const faults = async () =>
    ((await (await fetch(`${adminUrl}/faults`)).json()) as { faults: unknown[] }).faults;

  it('a foreign page can neither drive nor read the admin API, preflights included', async () => {
    const page = await openPage(`http://evil.test:${servedPort}/`);
    expect(await page.evaluate(() => location.origin)).toBe(`http://evil.test:${servedPort}`);
    // A JSON POST: the preflight is refused (403, no grant), so the POST is never sent.
    const json = await pageFetch(page, `${adminUrl}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'reset' }),
    });
    expect(json).toBe('blocked: TypeError');
    // A "simple" POST goes out without a preflight: the server refuses it before acting.
    const simple = await pageFetch(page, `${adminUrl}/scenarios/main-down`, {
      method: 'POST',
      mode: 'no-cors',
    });
    expect(simple).toBe('opaque');
    // Reads: the standby view and the request journal stay unreadable.
    expect(await pageFetch(page, `${adminUrl}/standby`)).toBe('blocked: TypeError');
    expect(await pageFetch(page, `${adminUrl}/requests`)).toBe('blocked: TypeError');
    expect(await faults()).toEqual([]);
    // The journal (read from here, not the page) shows the refused change (it leaves out
    // preflights and admin reads); the JSON POST never left the browser.
    const journal = (await (
      await fetch(`${adminUrl}/requests?service=admin&status=403`)
    ).json()) as { count: number; entries: Array<{ method: string; path: string }> };
    expect(journal.entries.map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /scenarios/main-down',
    ]);
    // The services stay open to any origin.
    const discovery = await pageFetch(page, `${mock.info.idpUrl}/.well-known/openid-configuration`);
    expect(discovery).toMatch(/^200 \{"issuer"/);
    await page.context().close();
  });

  it('a rebound host name (DNS rebinding) gets 403 on /admin, even same-origin', async () => {
    // The mock serves the page under the attacker's name: the browser sends Host: evil.test.
    const page = await openPage(
      `http://evil.test:${mockPort}/idp/.well-known/openid-configuration`,
    );
    expect(await pageFetch(page, '/admin/standby')).toMatch(/^403 \{"error":"forbidden"/);
    const drive = await pageFetch(page, '/admin/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'hang' }),
    });
    expect(drive).toMatch(/^403 \{"error":"forbidden"/);
    expect(await pageFetch(page, '/admin/console')).toMatch(/^403 /);
    expect(await faults()).toEqual([]);
    await page.context().close();
  });

  it('pages on loopback origins still drive it: a dev server on localhost, and the console', async () => {
    const page = await openPage(`http://localhost:${servedPort}/`);
    const set = await pageFetch(page, `${adminUrl}/scenarios/main-503`, { method: 'POST' });
    expect(set).toMatch(/^200 \{"scenario":"main-503"/);
    expect(await faults()).toHaveLength(1);
    expect(await pageFetch(page, `${adminUrl}/faults`, { method: 'DELETE' })).toBe(
      '200 {"cleared":1}',
    );
    await page.context().close();
    const console = await openPage(`${adminUrl}/console`);
    await console.getByText('connected (live)').waitFor({ timeout: 20_000 });
    await console.context().close();
  });
});
