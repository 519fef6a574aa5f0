// Main's answers about the caller (DECISIONS.md "Lease trust (third wave)"): after the one ID-token
// refresh, a 401 or 403 from main is a refusal (UNAUTHORIZED, FORBIDDEN), whatever the ID-token
// provider did; the SDK never fails over because of its ID token and never skips main because it
// judges the token expired. In an outage the standby still gets the cached token within its
// grace. The real ID-token source (auth.idToken) against the real mock. Rules:
// sdk/src/transport/licensing-transport.ts (the refresh after a 401, refreshFailure),
// sdk/src/auth/id-token-source.ts (fallback, noTokenAtAll), sdk/src/failover/main-attempts.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejection } from '@sdk-test/helpers/rejection.js';
import type { LicensingClientOptions } from '@standby-licensing/sdk';
import { createFileLeaseStore } from '@standby-licensing/sdk/node';
import { createLyingNetwork } from '@test/helpers/lying-network.js';
import {
  clearFaults,
  clientFor,
  countingFetch,
  type MockLicensing,
  mintIdToken,
  setClockOffset,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const HOUR = 3_600_000;

let mock: MockLicensing;
let folder: string;
let files = 0;
const network = createLyingNetwork();
beforeAll(async () => {
  mock = await startMockLicensing();
  folder = await mkdtemp(join(tmpdir(), 'trust-refusals-'));
  network.listen();
});
afterEach(async () => {
  network.resetHandlers();
  await clearFaults(mock.server);
  await setClockOffset(mock.server, 0);
});
afterAll(async () => {
  network.close();
  await mock.close();
  await rm(folder, { recursive: true, force: true });
});

/** An ID token that expired an hour ago on the services' clock (minted two hours back). */
async function expiredIdToken(): Promise<string> {
  await setClockOffset(mock.server, -2 * HOUR);
  try {
    return await mintIdToken(mock.server, 'user-1', 3_600);
  } finally {
    await setClockOffset(mock.server, 0);
  }
}

/** A provider that answers `answers` in order (a function throws or returns), counting calls. */
function scriptedProvider(answers: Array<() => unknown>) {
  const provider = {
    calls: 0,
    get: async (): Promise<string> => {
      const answer = answers[Math.min(provider.calls, answers.length - 1)]!;
      provider.calls += 1;
      return answer() as string;
    },
  };
  return provider;
}

/** A client with the real ID-token source on `provider`, counting requests per service. */
function countedClient(
  provider: { get: () => Promise<string> },
  extra: Partial<LicensingClientOptions> = {},
) {
  files += 1;
  const counting = countingFetch(mock);
  const { client, seen } = clientFor(mock, {
    idToken: provider.get,
    fetch: counting.fetch,
    leaseStore: createFileLeaseStore(join(folder, `store-${files}.json`)),
    ...extra,
    failover: { mainAttempts: 2, probeIntervalMs: 60_000, ...extra.failover },
  });
  return { client, seen, counts: counting.counts };
}

const refusedByProvider = () => {
  throw new Error('the identity provider refuses: session revoked');
};

describe.each(['A', 'B'] as const)('Strategy %s', (strategy) => {
  it('main 401 and the provider refuses the refresh: UNAUTHORIZED, the standby never asked', async () => {
    // A token the client holds as unexpired, that main (no grace) refuses as expired while the
    // standby (24 h grace) would take it: the services' clock is 2 h ahead of the client's.
    const token = await mintIdToken(mock.server, 'user-1', 3_600);
    await setClockOffset(mock.server, 2 * HOUR);
    const provider = scriptedProvider([() => token, refusedByProvider]);
    const { client, counts } = countedClient(provider, { failover: { strategy } });

    const error = await rejection(client.checkout(['ItemA']));
    expect({ error, standby: counts.standby }).toMatchObject({
      error: { code: 'UNAUTHORIZED', status: 401 },
      standby: 0,
    });
    expect(counts.main).toBe(1);
    expect(provider.calls).toBe(2);
    await client.close();
  });

  it('main answers 401 to a fresh token and the provider refuses the refresh: UNAUTHORIZED, the standby never asked', async () => {
    // The network says main refused; the token is one the standby would take as it is.
    let refused = 0;
    network.use(
      http.get(`${mock.server.info.mainUrl}/authz/.jwt`, () => {
        refused += 1;
        return HttpResponse.json(
          { error: 'invalid_token', error_description: 'session revoked' },
          { status: 401, headers: { 'www-authenticate': 'IdToken, ServiceKeyHash' } },
        );
      }),
    );
    const token = await mintIdToken(mock.server, 'user-1', 3_600);
    const provider = scriptedProvider([() => token, refusedByProvider]);
    const { client, counts } = countedClient(provider, { failover: { strategy } });

    const error = await rejection(client.checkout(['ItemA']));
    expect({ error, standby: counts.standby }).toMatchObject({
      error: { code: 'UNAUTHORIZED', status: 401 },
      standby: 0,
    });
    expect([refused, provider.calls]).toEqual([1, 2]);
    await client.close();
  });

  it('the provider returns an expired ID token: main is asked, refuses, UNAUTHORIZED; the standby never asked', async () => {
    const token = await expiredIdToken();
    const provider = scriptedProvider([() => token]);
    const { client, counts } = countedClient(provider, { failover: { strategy } });

    const error = await rejection(client.checkout(['ItemA']));
    expect({ error, main: counts.main, standby: counts.standby }).toMatchObject({
      error: { code: 'UNAUTHORIZED', status: 401 },
      main: 1,
      standby: 0,
    });
    await client.close();
  });

  it('main 403: FORBIDDEN, the standby never asked', async () => {
    let refused = 0;
    network.use(
      http.get(`${mock.server.info.mainUrl}/authz/.jwt`, () => {
        refused += 1;
        return HttpResponse.json(
          { error: 'forbidden', error_description: 'this user may not use the product' },
          { status: 403 },
        );
      }),
    );
    const provider = scriptedProvider([() => mintIdToken(mock.server)]);
    const { client, counts } = countedClient(provider, { failover: { strategy } });
    const error = await rejection(client.checkout(['ItemA']));
    expect({ error, standby: counts.standby }).toMatchObject({
      error: { code: 'FORBIDDEN', status: 403 },
      standby: 0,
    });
    expect(refused).toBe(1);
    await client.close();
  });

  it('an outage of main with the provider down and an expired cached token: the standby serves within its grace', async () => {
    const clock = { skewMs: 0 };
    const provider = scriptedProvider([
      () => mintIdToken(mock.server, 'user-1', 3_600),
      refusedByProvider,
    ]);
    const { client, seen, counts } = countedClient(provider, {
      failover: { strategy },
      now: () => Date.now() + clock.skewMs,
    });
    expect((await client.checkout(['ItemA'])).leases[0]!.servedBy).toBe('main');

    // Two hours later on every clock: the cached token expired an hour ago; main is down.
    clock.skewMs = 2 * HOUR;
    await setClockOffset(mock.server, 2 * HOUR);
    await setMainFault(mock.server, { mode: 'error', status: 503 });
    const [lease] = (await client.checkout(['ItemB'])).leases;
    expect(lease!.servedBy).toBe('standby');
    expect(seen).toContain('idTokenGrace');
    expect(counts.standby).toBeGreaterThan(0);
    await client.close();
  });
});

describe('no ID token at all', () => {
  it('a provider that returns a non-string: UNAUTHORIZED id-token-malformed, no request', async () => {
    const provider = scriptedProvider([() => 42]);
    const { client, counts } = countedClient(provider);
    expect(await rejection(client.checkout(['ItemA']))).toMatchObject({
      code: 'UNAUTHORIZED',
      reason: 'id-token-malformed',
    });
    expect(counts).toEqual({ main: 0, standby: 0 });
    await client.close();
  });

  it('a provider that cannot be reached and nothing cached: SERVICE_UNAVAILABLE, no request', async () => {
    const provider = scriptedProvider([refusedByProvider]);
    const { client, counts } = countedClient(provider);
    expect(await rejection(client.checkout(['ItemA']))).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      reason: 'id-token-provider-failed',
    });
    expect(counts).toEqual({ main: 0, standby: 0 });
    await client.close();
  });
});
