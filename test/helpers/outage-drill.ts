// One outage drill, run against any pair of licensing services: the mock server (its admin
// scenarios), the testing kit's fakes under msw's `setupServer`, or the same fakes under
// `setupWorker` in Chromium (this file is bundled into test/browser/pages/fake-licensing-app.ts).
// It uses only the SDK's public entries and Web APIs, so it runs in Node and in a page.
import {
  createEventClient,
  createLicensingClient,
  isLicensingError,
  type LicensingClient,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import type { ScenarioName } from '@standby-licensing/sdk/testing';

/** The services under drill, and how to drill them. */
export interface DrillTarget {
  urls: { mainUrl: string; standbyUrl: string; idpUrl: string; eventUrl: string };
  /** The roots the app embeds. */
  roots: TrustedRoot[];
  /** How long `standby-slow` holds each standby request, in ms. */
  standbySlowMs: number;
  /** Starts the named drills (together). */
  apply(names: readonly ScenarioName[]): Promise<void>;
  /** Ends every drill: every service healthy again, the standby active. */
  heal(): Promise<void>;
  setStandby(state: 'active' | 'dormant'): Promise<void>;
  /** Main grants `item` to `sub` from now on (a license). */
  grant(sub: string, item: string): Promise<void>;
  /** Main denies `item` to `sub` from now on. */
  revoke(sub: string, item: string): Promise<void>;
}

/** The drills each named scenario is run in: alone, and the standby's also with main down. */
export const SCENARIO_DRILLS: ReadonlyArray<readonly ScenarioName[]> = [
  ['main-down'],
  ['main-hang'],
  ['main-503'],
  ['main-rate-limited'],
  ['main-jwks-outage'],
  ['idp-down'],
  ['captive-portal'],
  ['standby-slow'],
  ['main-down', 'standby-slow'],
  ['standby-down'],
  ['main-down', 'standby-down'],
  ['events-down'],
];

/** What every drill gives, on a right setup: the same for the mock server and the fakes. */
export const EXPECTED_OUTCOMES: Readonly<Record<string, string>> = {
  healthy: 'ItemA@main',
  'main-down': 'ItemA@standby',
  'main-hang': 'ItemA@standby',
  'main-503': 'ItemA@standby',
  'main-rate-limited': 'ItemA@standby',
  'main-jwks-outage': 'ItemA@standby',
  'idp-down': 'SERVICE_UNAVAILABLE',
  'captive-portal': 'ItemA@standby',
  'standby-slow': 'ItemA@main',
  'main-down+standby-slow': 'ItemA@standby',
  'standby-down': 'ItemA@main',
  'main-down+standby-down': 'SERVICE_UNAVAILABLE',
  'events-down': 'ItemA@main; events SERVICE_UNAVAILABLE',
  'dormant standby, main down': 'STANDBY_DORMANT',
  'licensed item': 'ItemA@main,ItemC@main',
  'revoked item': 'ItemA@main; denied ItemC:noLicenseFound',
  'revoked item, main down': 'ItemA@standby,ItemC@standby',
  'failback: during the outage': 'ItemA@standby',
  'failback: after it': 'ItemA@main',
};

const USER = 'qa-user';

/** The error's SDK code, or its name. */
function codeOf(error: unknown): string {
  if (isLicensingError(error)) return error.code;
  return error instanceof Error ? error.name : String(error);
}

/** `ItemA@main,ItemB@main; denied ItemC:noLicenseFound`, or the error code. */
async function checkoutOutcome(client: LicensingClient, items: string[]): Promise<string> {
  try {
    const { leases, denied } = await client.checkout(items);
    const served = leases.map((lease) => `${lease.item}@${lease.servedBy}`).join(',');
    const refused = denied.map((item) => `${item.item}:${item.code}`).join(',');
    return refused === '' ? served : `${served}; denied ${refused}`;
  } catch (error) {
    return codeOf(error);
  }
}

/**
 * Runs every drill against `target` and returns what the app met in each, keyed as
 * {@link EXPECTED_OUTCOMES}. Each drill uses a fresh client whose ID token comes from the
 * issuer at `idpUrl` over HTTP, as an app's would.
 */
export async function runOutageDrill(target: DrillTarget): Promise<Record<string, string>> {
  const { urls } = target;
  const outcomes: Record<string, string> = {};
  const idToken = async () => {
    const response = await fetch(`${urls.idpUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: USER }),
    });
    return ((await response.json()) as { id_token: string }).id_token;
  };
  const appClient = (failover: Record<string, unknown> = {}) =>
    createLicensingClient({
      mainUrl: urls.mainUrl,
      standbyUrl: urls.standbyUrl,
      auth: { idToken },
      trust: { rootCertificates: target.roots },
      failover: {
        mainAttempts: 1,
        attemptTimeoutMs: 500,
        backoffBaseMs: 1,
        backoffMaxMs: 1,
        retryAfterMaxMs: 1,
        breaker: false,
        ...failover,
      },
    });
  const withClient = async (
    run: (client: LicensingClient) => Promise<string>,
    failover: Record<string, unknown> = {},
  ) => {
    const client = appClient(failover);
    try {
      return await run(client);
    } finally {
      await client.close();
    }
  };

  outcomes.healthy = await withClient((client) => checkoutOutcome(client, ['ItemA']));
  for (const names of SCENARIO_DRILLS) {
    await target.apply(names);
    const slow = names.includes('standby-slow');
    let outcome = await withClient(
      (client) => checkoutOutcome(client, ['ItemA']),
      slow ? { attemptTimeoutMs: target.standbySlowMs + 1_500 } : {},
    );
    if (names.includes('events-down')) {
      const events = createEventClient({
        eventUrl: urls.eventUrl,
        auth: { token: () => 'a-read-token' },
        timeoutMs: 500,
      });
      const read = await events.collect('billing', { limit: 1 }).then(
        (found) => `${found.length} events`,
        (error: unknown) => codeOf(error),
      );
      outcome = `${outcome}; events ${read}`;
    }
    outcomes[names.join('+')] = outcome;
    await target.heal();
  }

  await target.setStandby('dormant');
  await target.apply(['main-down']);
  outcomes['dormant standby, main down'] = await withClient((client) =>
    checkoutOutcome(client, ['ItemA']),
  );
  await target.heal();

  await target.grant(USER, 'ItemC');
  outcomes['licensed item'] = await withClient((client) =>
    checkoutOutcome(client, ['ItemA', 'ItemC']),
  );
  await target.revoke(USER, 'ItemC');
  outcomes['revoked item'] = await withClient((client) =>
    checkoutOutcome(client, ['ItemA', 'ItemC']),
  );
  await target.apply(['main-down']);
  outcomes['revoked item, main down'] = await withClient((client) =>
    checkoutOutcome(client, ['ItemA', 'ItemC']),
  );
  await target.heal();

  await withClient(
    async (client) => {
      const failedBack = new Promise<void>((resolve) => {
        client.on('failback', () => resolve());
      });
      await target.apply(['main-down']);
      outcomes['failback: during the outage'] = await checkoutOutcome(client, ['ItemA']);
      await target.heal();
      await failedBack;
      outcomes['failback: after it'] = await checkoutOutcome(client, ['ItemA']);
      return '';
    },
    { strategy: 'B', probeIntervalMs: 20, probeMaxIntervalMs: 20, probeJitterRatio: 0 },
  );
  return outcomes;
}
