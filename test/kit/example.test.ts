// The documented pattern of the testing kit (docs/testing-kit.md): a real mock server on a free
// port serves the standby and the ID-token issuer; msw breaks only the main service's URL, so the
// SDK's real failover, authorization and lease verification run end to end.

import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import {
  createLicensingClient,
  type FailureReason,
  isLicensingError,
  type LicensingEventHooks,
} from '@standby-licensing/sdk';
import {
  createRequestRecorder,
  mainDown,
  passthroughService,
  standbySwitchedOffMidOutage,
} from '@standby-licensing/sdk/testing';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let mock: RunningServer;
let idToken: string;
let root: { pem: string; keyId: string };
const network = setupServer();

beforeAll(async () => {
  mock = await startServer({ port: 0, state: 'active', apiKey: 'qa-drill-key' });
  const { standbyUrl, idpUrl, apiKey } = mock.info;
  // Before msw listens: a user's ID token from the mock issuer, and a fresh signing key whose
  // root the "app" embeds (what `standby-licensing embed-root` writes into a module).
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
  root = { pem: rootCertificate, keyId };
  network.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => network.resetHandlers());
afterAll(async () => {
  network.close();
  await mock.close();
});

function createClient(strategy: 'A' | 'B', on: LicensingEventHooks = {}) {
  return createLicensingClient({
    on,
    mainUrl: mock.info.mainUrl,
    standbyUrl: mock.info.standbyUrl,
    auth: { idToken: () => idToken },
    // Short waits keep the drill quick: a hung attempt is abandoned after 1.5 s (roomy enough
    // for the real standby on a busy machine), backoff and Retry-After waits are a few ms.
    failover: {
      strategy,
      mainAttempts: 2,
      attemptTimeoutMs: 1_500,
      backoffBaseMs: 1,
      backoffMaxMs: 5,
      retryAfterMaxMs: 5,
    },
    trust: { rootCertificates: [root] },
    hardwareId: 'qa-rig-1',
  });
}

describe('testing kit: main down, leases from the standby', () => {
  it.each([
    ['refused', 'connection-refused'],
    ['reset', 'connection-reset'],
    ['dns', 'dns'],
    ['hang', 'timeout'],
    ['unavailable', 'server-error'],
    ['rate-limited', 'rate-limited'],
    ['captive-portal', 'malformed-body'],
  ] as const)(
    'Strategy A, main %s: two main attempts (%s), then a verified lease from the standby',
    async (failure, reason) => {
      const { mainUrl, standbyUrl } = mock.info;
      network.use(...mainDown({ mainUrl, standbyUrl, failure }));
      const recorder = createRequestRecorder({ main: mainUrl, standby: standbyUrl });
      const detach = recorder.attach(network);
      const reasons: FailureReason[] = [];
      const client = createClient('A', { attemptFailed: (event) => reasons.push(event.reason) });
      try {
        const { leases, denied } = await client.checkout(['ItemA']);
        expect(denied).toEqual([]);
        expect(leases).toHaveLength(1);
        expect(leases[0]).toMatchObject({ item: 'ItemA', servedBy: 'standby' });
        expect(leases[0]!.claims).toMatchObject({ ItemA: true, hw: 'qa-rig-1', sub: 'qa-user' });
        expect(recorder.count({ service: 'main', route: '/authz/.jwt' })).toBe(2);
        // How the SDK classified each main attempt.
        expect(reasons).toEqual([reason, reason]);
        expect(recorder.count({ service: 'standby', route: '/authz/.jwt' })).toBe(1);
      } finally {
        detach();
        await client.close();
      }
    },
  );

  it('Strategy B: after the first outage it stays on the standby with zero main attempts', async () => {
    const { mainUrl, standbyUrl } = mock.info;
    network.use(...mainDown({ mainUrl, standbyUrl, failure: 'unavailable' }));
    const recorder = createRequestRecorder({ main: mainUrl, standby: standbyUrl });
    const detach = recorder.attach(network);
    const client = createClient('B');
    try {
      const first = await client.checkout(['ItemA']);
      expect(first.leases[0]!.servedBy).toBe('standby');
      expect(recorder.count({ service: 'standby', route: '/enabled' })).toBe(1);
      expect(client.activeService).toBe('standby');

      recorder.reset();
      const second = await client.checkout(['ItemB']);
      expect(second.leases[0]).toMatchObject({ item: 'ItemB', servedBy: 'standby' });
      expect(recorder.count({ service: 'main' })).toBe(0);
    } finally {
      detach();
      await client.close();
    }
  });

  it('Strategy B: a standby switched off mid-outage ends in an error, never a hang', async () => {
    const { mainUrl, standbyUrl } = mock.info;
    network.use(...standbySwitchedOffMidOutage({ mainUrl, standbyUrl, enabledCalls: 1 }));
    const client = createClient('B');
    try {
      const first = await client.checkout(['ItemA']);
      expect(first.leases[0]!.servedBy).toBe('standby');
      const error = await client.checkout(['ItemA']).then(
        () => expect.unreachable('the second checkout should fail'),
        (reason: unknown) => reason,
      );
      expect(isLicensingError(error)).toBe(true);
      expect(['STANDBY_DORMANT', 'SERVICE_UNAVAILABLE']).toContain(
        (error as { code: string }).code,
      );
      expect(client.activeService).toBe('main');
    } finally {
      await client.close();
    }
  });

  it('passthroughService keeps a real service reachable under onUnhandledRequest "error"', async () => {
    network.use(...passthroughService(mock.info.standbyUrl));
    const response = await fetch(`${mock.info.standbyUrl}/enabled`, {
      headers: { Authorization: `IdToken ${idToken}` },
    });
    expect(await response.json()).toBe(true);
  });
});
