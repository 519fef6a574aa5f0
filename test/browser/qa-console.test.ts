// The QA console in headless Chromium drives a full outage drill while an app (the SDK's licensing
// client, in this Node process) keeps checking out leases: break main and watch the app's lease
// requests land on the standby in the live log; jump the clock past the ID-token grace; switch
// the standby off; restore everything and watch them come back to main. Then provisioning,
// revocation and the feed browser. Every step is driven by clicking (or pressing Enter on) the
// page's controls and checked on the page's text, never on its colours.
//
// The screenshot of the console during the drill (README, docs/images/qa-console.png) is taken
// here: UPDATE_SCREENSHOTS=1 writes it into docs/images/; otherwise it goes to a temp folder.
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import {
  createLicensingClient,
  isLicensingError,
  type LicensingClient,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserSession,
  chromiumEndpoint,
  openBrowserSession,
} from '../helpers/browser/connect-browser.js';

const API_KEY = 'qa-console-drill-key';
const APP_USER = 'drill-app';
const APP_DEVICE = 'drill-laptop';
const STEP_TIMEOUT_MS = 20_000;
const SCREENSHOT = fileURLToPath(new URL('../../docs/images/qa-console.png', import.meta.url));

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${response.url}`);
  return (await response.json()) as T;
}

/** The app: a licensing client that checks out ItemA every 150 ms until stopped. */
function runApp(client: LicensingClient) {
  const outcomes: string[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      try {
        const { leases } = await client.checkout(['ItemA']);
        outcomes.push(leases[0]?.servedBy ?? 'denied');
      } catch (error) {
        outcomes.push(isLicensingError(error) ? error.code : String(error));
      }
      await sleep(150);
    }
  })();
  return {
    outcomes,
    /** Outcomes from now on. */
    mark: () => outcomes.length,
    async stop() {
      running = false;
      await done;
    },
  };
}

describe.skipIf(chromiumEndpoint() === null)('QA console outage drill in Chromium', () => {
  let mock: RunningServer;
  let session: BrowserSession;
  let page: Page;
  let client: LicensingClient;
  let app: ReturnType<typeof runApp>;
  let adminUrl: string;

  const logRows = () => page.locator('#log-rows tr');
  /**
   * The first live-log row of the app's device with `text` (e.g. `lease from standby`). The
   * device, not the user: a request a fault answers never reaches authentication.
   */
  const appRow = (text: string | RegExp): Locator =>
    logRows().filter({ hasText: APP_DEVICE }).filter({ hasText: text }).first();
  const click = (name: string | RegExp) => page.getByRole('button', { name }).click();
  const clearLog = () => click('Clear view');

  beforeAll(async () => {
    mock = await startServer({ port: 0, state: 'active', admin: true, apiKey: API_KEY });
    adminUrl = mock.info.mainUrl.replace(/\/main$/, '/admin');
    const { standbyUrl, mainUrl, idpUrl } = mock.info;
    // The app's roots: a standby signing key's root (as embed-root makes it) and main's root.
    const created = await json<{ keyId: string; rootCertificate: string }>(
      await fetch(`${standbyUrl}/signing-keys`, {
        method: 'POST',
        headers: { 'Service-ApiKey': API_KEY },
      }),
    );
    const jwks = await json<{ keys: Array<{ x5c: string[] }> }>(
      await fetch(`${mainUrl}/.well-known/jwks.json`),
    );
    const der = jwks.keys[0]!.x5c.at(-1)!;
    const roots: TrustedRoot[] = [
      { pem: created.rootCertificate, keyId: created.keyId },
      {
        pem: `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`,
      },
    ];
    // One ID token for the whole drill (1 h), so a clock 26 h ahead puts it past the grace.
    const { id_token: idToken } = await json<{ id_token: string }>(
      await fetch(`${idpUrl}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sub: APP_USER, expiresInSeconds: 3600 }),
      }),
    );
    client = createLicensingClient({
      mainUrl,
      standbyUrl,
      auth: { idToken: () => idToken },
      trust: { rootCertificates: roots },
      hardwareId: APP_DEVICE,
      // Every call tries main once, then the standby: the log shows both, call after call.
      failover: { strategy: 'A', mainAttempts: 1, attemptTimeoutMs: 2_000, breaker: false },
    });

    // A license the app's user holds, so the console's licenses table has a row to show.
    await json(
      await fetch(`${adminUrl}/main/licenses`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sub: APP_USER, item: 'ItemA', activationCode: 'DRILL-2024' }),
      }),
    );
    session = await openBrowserSession();
    page = await session.context.newPage();
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto(`${adminUrl}/console`);
    await page.getByText('connected (live)').waitFor({ timeout: STEP_TIMEOUT_MS });
    app = runApp(client);
  });

  afterAll(async () => {
    await app?.stop();
    await client?.close();
    await session?.close();
    await mock?.close();
  });

  it('loads with no script errors and tells the state in words', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await expect
      .poll(() => page.locator('#summary').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toBe('Main: healthy · Standby: active · Clock: real time');
    await appRow('lease from main').waitFor({ timeout: STEP_TIMEOUT_MS });
    expect(errors).toEqual([]);
  });

  it('breaks main from the keyboard, and the app’s leases land on the standby in the live log', async () => {
    await clearLog();
    const from = app.mark();
    // Keyboard only: focus the button and press Enter.
    await page.getByRole('button', { name: 'Break main' }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#summary').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toMatch(/^Main: BROKEN \(HTTP 503 on every route\)/);
    const failed = appRow('503 Service Unavailable');
    const onStandby = appRow('lease from standby');
    await failed.waitFor({ timeout: STEP_TIMEOUT_MS });
    await onStandby.waitFor({ timeout: STEP_TIMEOUT_MS });
    await expect.poll(() => onStandby.locator('td').nth(1).textContent()).toBe('standby');
    await expect.poll(() => failed.locator('td').nth(1).textContent()).toBe('main');
    await expect
      .poll(() => onStandby.locator('td').nth(6).textContent())
      .toBe(`${APP_USER} · ${APP_DEVICE}`);
    // What the app itself saw: its leases now come from the standby.
    await expect.poll(() => app.outcomes.slice(from).includes('standby')).toBe(true);
    // A few more rows for the picture.
    await expect
      .poll(() => logRows().filter({ hasText: 'lease from standby' }).count(), {
        timeout: STEP_TIMEOUT_MS,
      })
      .toBeGreaterThanOrEqual(5);
    const shot =
      process.env.UPDATE_SCREENSHOTS === '1' ? SCREENSHOT : join(tmpdir(), 'qa-console.png');
    await mkdir(join(shot, '..'), { recursive: true });
    await page.screenshot({ path: shot, fullPage: true });
  });

  it('shows what the standby granted: the app’s leases, grants in the ID-token grace, the outbox, a window', async () => {
    const usage = page.locator('#usage-rows tr', { hasText: APP_USER });
    const cell = (i: number) => usage.locator('td').nth(i).textContent();
    await expect.poll(() => cell(1), { timeout: STEP_TIMEOUT_MS }).toBe('ItemA');
    await expect.poll(async () => Number(await cell(2))).toBeGreaterThan(0);
    expect(await cell(8)).toBe('1');
    expect(await cell(9)).toBe('0');
    // The page shows what the server summarises (the app keeps leasing: the page catches up).
    const served = async () =>
      (
        await json<{ rows: Array<{ consumer: string; granted: number }> }>(
          await fetch(`${adminUrl}/standby/usage`),
        )
      ).rows.find((r) => r.consumer === APP_USER)!.granted;
    await expect
      .poll(async () => Number(await cell(2)) <= (await served()), { timeout: STEP_TIMEOUT_MS })
      .toBe(true);
    // The journal says what each licensing request was.
    await appRow('lease from standby').waitFor({ timeout: STEP_TIMEOUT_MS });
    expect(await appRow('lease from standby').locator('td').nth(2).textContent()).toBe(
      'GET /authz/.jwt · consume',
    );

    // Eight hours on, the app's one-hour ID token is past its exp: the standby still grants it
    // (the 24 h grace), and the panel counts those grants apart.
    await click('+8 h (a lease)');
    await expect
      .poll(async () => Number(await cell(9)), { timeout: STEP_TIMEOUT_MS })
      .toBeGreaterThan(0);
    await click('Reset offset');

    // Held deliveries: the events wait in the standby's outbox, and the panel says so.
    await click("Hold the standby's event deliveries");
    await expect
      .poll(() => page.locator('#standby-outbox').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toMatch(/^[1-9]\d* events? waiting — deliveries HELD$/);
    await expect
      .poll(() => page.locator('#usage-state').textContent())
      .toContain("more still in the standby's outbox (not counted yet)");
    await click("Let the standby's event deliveries go");
    await expect
      .poll(() => page.locator('#standby-outbox').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toMatch(/delivering$/);

    // A window in the future holds nothing; "Show everything" brings the rows back.
    await page.getByLabel('From (received at or after)').fill('2099-01-01T00:00:00');
    await click('Show window');
    await expect
      .poll(() => page.locator('#usage-rows').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toContain('no lease from the standby in this window');
    await click('Show everything');
    await expect.poll(() => cell(1), { timeout: STEP_TIMEOUT_MS }).toBe('ItemA');
  });

  it('jumps the clock past the ID-token grace: the standby refuses the app (401)', async () => {
    await clearLog();
    await click(/Clock \+26 h/);
    await appRow('401 Unauthorized').waitFor({ timeout: STEP_TIMEOUT_MS });
    await expect
      .poll(() => page.locator('#grace').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toContain('standby — refused (past the grace)');
    await click('Clock back to real time');
    await clearLog();
    await appRow('lease from standby').waitFor({ timeout: STEP_TIMEOUT_MS });
  });

  it('switches the standby off with its management key: 403 standby_dormant for the app', async () => {
    await page.getByLabel(/Management API key/).fill(API_KEY);
    await clearLog();
    await click('Standby: disable');
    await expect
      .poll(() => page.locator('#standby-state').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toBe('dormant');
    await appRow('403 Forbidden').waitFor({ timeout: STEP_TIMEOUT_MS });
  });

  it('restores main and the standby: leases come from main again', async () => {
    await click('Standby: enable');
    await page.getByRole('button', { name: 'Restore main' }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#summary').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toBe('Main: healthy · Standby: active · Clock: real time');
    await clearLog();
    const from = app.mark();
    await appRow('lease from main').waitFor({ timeout: STEP_TIMEOUT_MS });
    await expect.poll(() => app.outcomes.slice(from).at(-1)).toBe('main');
  });

  it('picks a scenario: main rate-limited, the app moves to the standby; ending the drill brings it back', async () => {
    const picker = page.locator('#scenario');
    await expect
      .poll(() => picker.locator('option').allTextContents(), { timeout: STEP_TIMEOUT_MS })
      .toEqual(
        expect.arrayContaining([
          'main-down',
          'main-hang',
          'main-503',
          'main-rate-limited',
          'main-jwks-outage',
          'idp-down',
          'captive-portal',
          'standby-slow',
        ]),
      );
    await picker.selectOption('main-rate-limited');
    await expect.poll(() => page.locator('#scenario-description').textContent()).toContain('429');
    await clearLog();
    await click('Apply scenario');
    await expect
      .poll(() => page.locator('#summary').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toBe(
        'Drill: main-rate-limited · Main: BROKEN (HTTP 429, Retry-After 1 s on every route) · Standby: active · Clock: real time',
      );
    await appRow('429 Too Many Requests').waitFor({ timeout: STEP_TIMEOUT_MS });
    await appRow('lease from standby').waitFor({ timeout: STEP_TIMEOUT_MS });
    // The faults table names the service, route and mode the scenario set.
    await expect
      .poll(() => page.locator('#faults tr').first().locator('td').allTextContents())
      .toEqual(expect.arrayContaining(['main', '*', 'HTTP 429, Retry-After 1 s']));

    await click('End drill (clear every fault)');
    await expect
      .poll(() => page.locator('#summary').textContent(), { timeout: STEP_TIMEOUT_MS })
      .toBe('Main: healthy · Standby: active · Clock: real time');
    await clearLog();
    const from = app.mark();
    await appRow('lease from main').waitFor({ timeout: STEP_TIMEOUT_MS });
    await expect.poll(() => app.outcomes.slice(from).at(-1)).toBe('main');
  });

  it('provisions and revokes a license, and the feed browser shows both events', async () => {
    await page.getByLabel('User (sub)', { exact: true }).fill('console-user');
    await page.getByLabel('Item', { exact: true }).fill('Pro');
    await page.getByLabel('Activation code', { exact: true }).fill('QA-CODE-1');
    await click('Provision');
    const license = page.locator('#licenses tr', { hasText: 'QA-CODE-1' });
    await expect.poll(() => license.locator('td').nth(4).textContent()).toBe('live');
    await click('Block activation code QA-CODE-1');
    await expect
      .poll(() => license.locator('td').nth(4).textContent())
      .toBe('not live: code blocked');
    await click('Unblock activation code QA-CODE-1');
    await click('Revoke the license of console-user for Pro');
    await expect.poll(() => license.count()).toBe(0);

    await page.getByLabel('Feed', { exact: true }).fill('main');
    await click('Read newest');
    const types = page.locator('#feed-rows tr td:nth-child(2)');
    await expect
      .poll(async () => (await types.allTextContents()).slice(0, 4), { timeout: STEP_TIMEOUT_MS })
      .toEqual([
        'LicenseRevoked',
        'ActivationCodeUnblocked',
        'ActivationCodeBlocked',
        'LicenseProvisioned',
      ]);
  });

  it('holds one event stream per open console, and drops it when the page goes', async () => {
    const readers = async () =>
      (await json<{ readers: number }>(await fetch(`${adminUrl}/requests`))).readers;
    expect(await readers()).toBe(1);
    await page.close();
    await expect.poll(readers, { timeout: STEP_TIMEOUT_MS }).toBe(0);
  });
});
