/**
 * qa-outage-drill.test.ts: a QA team's outage drills for a desktop app, as a vitest file.
 *
 * What it does:
 *   Rehearses the three drills of the testing kit (`@standby-licensing/sdk/testing`) against the
 *   app's real licensing client: main down for the whole test, main flapping, and the standby
 *   switched off in the middle of an outage. A real mock server (standby and ID-token issuer)
 *   runs in the test on a free port; msw breaks only the main service's URL, so failover, ID
 *   tokens, signatures and certificate chains are all real.
 *
 * Steps:
 *   1. beforeAll: start the mock server, get an ID token, embed the roots (a new standby signing
 *      key, as `standby-licensing embed-root --new-key` does, and the main root from main's JWKS), then
 *      start msw with `onUnhandledRequest: 'error'`, so a request no drill expects fails loudly.
 *   2. Each test installs one drill's handlers (`network.use(...)`), records the requests, and
 *      asserts which service served each lease and how the client got there.
 *   3. afterEach resets the handlers: each test gets fresh drill counters.
 *
 * Needs:
 *   - Nothing running and no prior step: the test starts its own mock server
 *     (`startServer({ port: 0, state: 'active' })`). Run from the repo root after `npm install`:
 *     `npx vitest run examples/qa-outage-drill.test.ts`.
 *   - msw 2 (a dev dependency here; an optional peer dependency of the SDK, so install it in
 *     your app's dev dependencies when you copy this file).
 *
 * Assumptions:
 *   - The client's timeouts and backoffs are short so the drills finish in well under a second
 *     each; a real app keeps the defaults.
 */

import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import {
  createLicensingClient,
  type FailbackReason,
  type FailureReason,
  isLicensingError,
  type LicensingClient,
  type TrustedRoot,
} from '@standby-licensing/sdk';
import {
  createRequestRecorder,
  mainDown,
  mainFlaps,
  passthroughService,
  standbySwitchedOffMidOutage,
} from '@standby-licensing/sdk/testing';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let mock: RunningServer;
let idToken: string;
let roots: TrustedRoot[];
const network = setupServer();

beforeAll(async () => {
  mock = await startServer({ port: 0, state: 'active' });
  const { mainUrl, standbyUrl, idpUrl, apiKey } = mock.info;
  // Before msw listens, so these reach the mock directly.
  const token = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: 'qa-user' }),
  });
  idToken = ((await token.json()) as { id_token: string }).id_token;
  const key = await fetch(`${standbyUrl}/signing-keys`, {
    method: 'POST',
    headers: { 'Service-ApiKey': apiKey },
  });
  const { keyId, rootCertificate } = (await key.json()) as {
    keyId: string;
    rootCertificate: string;
  };
  const jwks = (await (await fetch(`${mainUrl}/.well-known/jwks.json`)).json()) as {
    keys: Array<{ x5c: string[] }>;
  };
  const mainRootDer = jwks.keys[0]!.x5c.at(-1)!;
  const mainRoot = `-----BEGIN CERTIFICATE-----\n${mainRootDer.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  roots = [{ pem: rootCertificate, keyId }, { pem: mainRoot }];
  network.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => network.resetHandlers());
afterAll(async () => {
  network.close();
  await mock.close();
});

/** What the drills watch: the client's failure reasons and failbacks. */
interface Seen {
  reasons: FailureReason[];
  failbacks: FailbackReason[];
}

/** The app's licensing client, with drill-friendly timeouts. */
function createAppClient(
  strategy: 'A' | 'B',
  probeIntervalMs = 20,
): { client: LicensingClient; seen: Seen } {
  const seen: Seen = { reasons: [], failbacks: [] };
  const client = createLicensingClient({
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    auth: { idToken: () => idToken },
    failover: {
      strategy,
      mainAttempts: 2,
      attemptTimeoutMs: 500,
      backoffBaseMs: 1,
      backoffMaxMs: 5,
      retryAfterMaxMs: 5,
      // How often Strategy B probes main while on the standby (default 30 s).
      probeIntervalMs,
    },
    trust: { rootCertificates: roots },
    hardwareId: 'qa-rig-1',
    on: {
      attemptFailed: (e) => {
        if (e.service === 'main') seen.reasons.push(e.reason);
      },
      failback: (e) => seen.failbacks.push(e.reason),
    },
  });
  return { client, seen };
}

/** Resolves on the client's next failback. */
function nextFailback(client: LicensingClient): Promise<FailbackReason> {
  return new Promise((resolve) => {
    const off = client.on('failback', (event) => {
      off();
      resolve(event.reason);
    });
  });
}

describe('drill: main down for the whole test', () => {
  it('Strategy B serves checkout, renewal and release from the standby, trying main only once', async () => {
    const { mainUrl, standbyUrl } = mock.info;
    network.use(...mainDown({ mainUrl, standbyUrl, failure: 'refused' }));
    const recorder = createRequestRecorder({ main: mainUrl, standby: standbyUrl });
    const detach = recorder.attach(network);
    // Probes every minute: none during this test, so every request below is lease traffic.
    const { client, seen } = createAppClient('B', 60_000);
    try {
      const { leases } = await client.checkout(['ItemA', 'ItemB']);
      expect(leases.map((lease) => [lease.item, lease.servedBy])).toEqual([
        ['ItemA', 'standby'],
        ['ItemB', 'standby'],
      ]);
      // Two refused attempts on main, then one `GET /enabled` decided for the standby.
      expect(seen.reasons).toEqual(['connection-refused', 'connection-refused']);
      expect(recorder.count({ service: 'standby', route: '/enabled' })).toBe(1);
      expect(client.activeService).toBe('standby');

      recorder.reset();
      const renewed = await client.renew(leases[0]!);
      expect(renewed).toMatchObject({ item: 'ItemA', servedBy: 'standby' });
      expect(renewed.leaseId).toBe(leases[0]!.leaseId);
      await client.release(leases);
      // Sticky: once on the standby, not a single request to main.
      expect(recorder.count({ service: 'main' })).toBe(0);
      expect(recorder.count({ service: 'standby', route: '/authz/.jwt' })).toBe(2);
    } finally {
      detach();
      await client.close();
    }
  });
});

describe('drill: main flaps', () => {
  it('Strategy A: retries absorb a main that fails every other request; the standby is never asked', async () => {
    const { mainUrl, standbyUrl } = mock.info;
    const { client, seen } = createAppClient('A');
    try {
      // Warm up while main is healthy, so the client has main's keys before the flapping starts.
      network.use(...passthroughService(mainUrl));
      const warm = await client.checkout(['ItemA']);
      network.resetHandlers();

      network.use(...mainFlaps({ mainUrl, standbyUrl }));
      const recorder = createRequestRecorder({ main: mainUrl, standby: standbyUrl });
      const detach = recorder.attach(network);
      const renewed = await client.renew(warm.leases[0]!);
      const { leases } = await client.checkout(['ItemB']);
      await client.release([renewed, ...leases]);
      detach();

      expect(renewed.servedBy).toBe('main');
      expect(leases[0]!.servedBy).toBe('main');
      // Renew, checkout, release: each failed once, then passed on its second attempt.
      expect(seen.reasons).toEqual([
        'connection-refused',
        'connection-refused',
        'connection-refused',
      ]);
      expect(recorder.count({ service: 'main' })).toBe(6);
      expect(recorder.count({ service: 'standby' })).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('Strategy B: main fails twice then recovers; the client fails back and main reissues the lease', async () => {
    const { mainUrl, standbyUrl } = mock.info;
    network.use(
      ...mainFlaps({ mainUrl, standbyUrl, failures: 2, passes: Number.POSITIVE_INFINITY }),
    );
    const { client, seen } = createAppClient('B');
    try {
      const failback = nextFailback(client);
      const { leases } = await client.checkout(['ItemA']);
      expect(leases[0]!.servedBy).toBe('standby');
      expect(seen.reasons).toEqual(['connection-refused', 'connection-refused']);

      // The background probe finds main answering again.
      expect(await failback).toBe('main-recovered');
      expect(client.activeService).toBe('main');

      // Main never saw the standby's lease id: the renewal checks the item out anew on main.
      const renewed = await client.renew(leases[0]!);
      expect(renewed).toMatchObject({ item: 'ItemA', servedBy: 'main' });
      expect(renewed.leaseId).not.toBe(leases[0]!.leaseId);
    } finally {
      await client.close();
    }
  });
});

describe('drill: standby switched off mid-outage', () => {
  it('Strategy B: the first lease comes from the standby; once it is off, renewal fails fast with STANDBY_DORMANT', async () => {
    const { mainUrl, standbyUrl } = mock.info;
    network.use(...standbySwitchedOffMidOutage({ mainUrl, standbyUrl, enabledCalls: 1 }));
    // No background probe: the renewal below is what finds the standby switched off.
    const { client, seen } = createAppClient('B', 60_000);
    try {
      const { leases } = await client.checkout(['ItemA']);
      expect(leases[0]!.servedBy).toBe('standby');

      const error = await client.renew(leases[0]!).then(
        () => expect.unreachable('the standby is off and main is down'),
        (reason: unknown) => reason,
      );
      // The app can tell the user exactly why: both services are unavailable to it.
      expect(isLicensingError(error) && error.code).toBe('STANDBY_DORMANT');
      // The standby's 403 sent the client back to main, which is still down.
      expect(seen.failbacks).toEqual(['standby-forbidden']);
      expect(client.activeService).toBe('main');
      // The lease already held stays valid until it expires: the app keeps working offline.
      expect(leases[0]!.expiresAt).toBeGreaterThan(Date.now());
    } finally {
      await client.close();
    }
  });
});
