// Regression (issue 10): a JWKS that cannot be loaded is an outage of its service (DECISIONS.md
// "SDK additions"), so failover applies; it used to surface as TOKEN_INVALID with no failover.
import { isLicensingError } from '@standby-licensing/sdk';
import {
  clearFaults,
  clientFor,
  closedPort,
  type MockLicensing,
  setMainFault,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterEach(() => clearFaults(mock.server));
afterAll(() => mock.close());

describe.each(['A', 'B'] as const)('Strategy %s, main JWKS unreachable', (strategy) => {
  it.each(['reset', 'error'] as const)(
    "main's /authz/.jwt answers but its JWKS fails (%s): the lease comes from the standby",
    async (mode) => {
      await setMainFault(mock.server, { route: '/.well-known/jwks.json', mode, status: 503 });
      const { client, seen } = clientFor(mock, {
        failover: { strategy, mainAttempts: 2, probeIntervalMs: 60_000 },
      });
      const { leases } = await client.checkout(['ItemA']);
      expect(leases[0]).toMatchObject({ item: 'ItemA', servedBy: 'standby' });
      expect(seen.filter((name) => name === 'attemptFailed')).toHaveLength(2);
      expect(seen).toContain('failover');
      await client.close();
    },
  );
});

it('a standby JWKS outage with main down is SERVICE_UNAVAILABLE, not TOKEN_INVALID', async () => {
  const standbyJwks = `${mock.server.info.standbyUrl}/.well-known/jwks.json`;
  const { client } = clientFor(mock, {
    mainUrl: `http://127.0.0.1:${await closedPort()}/main`,
    failover: { strategy: 'A', mainAttempts: 1 },
    // The standby's lease route answers; only its JWKS route is down.
    fetch: (input, init) =>
      String(input) === standbyJwks
        ? Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }))
        : fetch(input, init),
  });
  const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
  expect(isLicensingError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
  expect((error as Error).message).toMatch(/standby: Could not reach the standby/);
  await client.close();
});

describe('nothing reachable', () => {
  it('says which service could not be reached', async () => {
    const [mainPort, standbyPort] = [await closedPort(), await closedPort()];
    const { client } = clientFor(mock, {
      mainUrl: `http://127.0.0.1:${mainPort}/main`,
      standbyUrl: `http://127.0.0.1:${standbyPort}/standby`,
      failover: { mainAttempts: 1 },
    });
    const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
    expect((error as Error).message).toMatch(
      /main: Could not reach the main licensing service .*connection refused.*standby: Could not reach the standby licensing service .*connection refused/,
    );
    await client.close();
  });

  it('a new user whose identity provider is down too: SERVICE_UNAVAILABLE naming the provider, not UNAUTHORIZED', async () => {
    const idpPort = await closedPort();
    const { client } = clientFor(mock, {
      mainUrl: `http://127.0.0.1:${await closedPort()}/main`,
      standbyUrl: `http://127.0.0.1:${await closedPort()}/standby`,
      failover: { mainAttempts: 1 },
      // What the quick start does: ask the (here unreachable) mock's issuer for a token.
      idToken: async () => {
        const response = await fetch(`http://127.0.0.1:${idpPort}/idp/token`, { method: 'POST' });
        return ((await response.json()) as { id_token: string }).id_token;
      },
    });
    const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
    expect((error as Error).message).toMatch(
      /No ID token .*the ID-token provider failed: fetch failed/,
    );
    await client.close();
  });
});
