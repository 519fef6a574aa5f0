// The named drills read the same in a unit test and against the mock (DECISIONS.md "The mock
// server for QA and CI"): the testing kit's `scenarioNames` are the mock's scenarios, and for each
// drill the SDK's licensing and event clients meet the same outcome, with the same requests in
// the same order, whether the mock server applies it (`POST /admin/scenarios/<name>`) or the
// kit's `scenarioHandlers(name, ...)` do in msw in front of the healthy mock.
import { createEventClient, isLicensingError } from '@standby-licensing/sdk';
import {
  passthroughService,
  scenarioHandlers,
  scenarioNames,
} from '@standby-licensing/sdk/testing';
import { clientFor, type MockLicensing, startMockLicensing } from '@test/helpers/mock-licensing.js';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../mock-server/src/admin/scenarios.js';

type Name = (typeof scenarioNames)[number];

let mock: MockLicensing;
let adminUrl: string;
/** A feed read token from the mock's issuer (`*`), minted before any drill. */
let readToken: string;
const server = setupServer();

beforeAll(async () => {
  mock = await startMockLicensing();
  adminUrl = mock.server.info.mainUrl.replace(/\/main$/, '/admin');
  const minted = await fetch(`${mock.server.info.idpUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'drill-reader', claims: { '*': true } }),
  });
  readToken = ((await minted.json()) as { id_token: string }).id_token;
  // Every request reaches the real mock unless a drill's handler takes it first.
  server.listen({ onUnhandledRequest: 'error' });
  server.use(...passthroughService(new URL(mock.server.info.mainUrl).origin));
});
afterEach(async () => {
  server.resetHandlers(...passthroughService(new URL(mock.server.info.mainUrl).origin));
  await fetch(`${adminUrl}/faults`, { method: 'DELETE' });
});
afterAll(async () => {
  server.close();
  await mock.close();
});

/** What the clients met, and the service requests they made (method and path, in order). */
interface Drill {
  checkout: string;
  events: string;
  requests: string[];
}

/** An error's `code` (the SDK's errors have one), else its name. */
function errorName(error: unknown): string {
  if (isLicensingError(error)) return error.code;
  const { code, name } = error as { code?: unknown; name?: unknown };
  return String(code ?? name);
}

/** One checkout with a fresh licensing client and one feed read with the event client. */
async function runDrill(attemptTimeoutMs: number): Promise<Drill> {
  const { mainUrl, eventUrl, idpUrl } = mock.server.info;
  const origin = new URL(mainUrl).origin;
  const requests: string[] = [];
  const recording: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    requests.push(`${request.method} ${new URL(request.url).pathname.replace(origin, '')}`);
    return fetch(request);
  };
  const { client } = clientFor(mock, {
    fetch: recording,
    // The app asks the mock's issuer for its ID token, as the quick start does.
    idToken: async () => {
      const response = await recording(`${idpUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub: 'drill-user' }),
      });
      return ((await response.json()) as { id_token: string }).id_token;
    },
    failover: {
      strategy: 'A',
      mainAttempts: 1,
      attemptTimeoutMs,
      breaker: false,
    },
  });
  const checkout = await client.checkout(['ItemA']).then(
    ({ leases }) => `lease from ${leases[0]?.servedBy}`,
    (error: unknown) => errorName(error),
  );
  await client.close();
  const events = createEventClient({
    eventUrl,
    auth: { token: () => readToken },
    fetch: recording,
    timeoutMs: attemptTimeoutMs,
  });
  const read = await events.collect('drill', { limit: 1 }).then(
    (found) => `${found.length} events`,
    (error: unknown) => errorName(error),
  );
  return { checkout, events: read, requests };
}

/** A drill of one or more scenarios at once: on the mock, or through msw. */
async function drillOnMock(names: Name[], attemptTimeoutMs: number): Promise<Drill> {
  for (const name of names) {
    const response = await fetch(`${adminUrl}/scenarios/${name}`, { method: 'POST' });
    expect(response.status).toBe(200);
  }
  return runDrill(attemptTimeoutMs);
}

async function drillInMsw(names: Name[], attemptTimeoutMs: number): Promise<Drill> {
  server.use(...names.flatMap((name) => scenarioHandlers(name, mock.server.info)));
  return runDrill(attemptTimeoutMs);
}

it('has the same scenario names as the mock server, in the same order', () => {
  expect([...scenarioNames]).toEqual(Object.keys(SCENARIOS));
});

describe('each drill, on the mock and in msw, as the SDK meets it', () => {
  const cases: Array<[string, Name[], string, number]> = [
    ['main-down', ['main-down'], 'lease from standby', 500],
    ['main-hang', ['main-hang'], 'lease from standby', 500],
    ['main-503', ['main-503'], 'lease from standby', 500],
    ['main-rate-limited', ['main-rate-limited'], 'lease from standby', 500],
    ['main-jwks-outage', ['main-jwks-outage'], 'lease from standby', 500],
    ['idp-down', ['idp-down'], 'SERVICE_UNAVAILABLE', 500],
    ['captive-portal', ['captive-portal'], 'lease from standby', 500],
    ['standby-slow (main healthy)', ['standby-slow'], 'lease from main', 500],
    ['standby-slow with main-down', ['main-down', 'standby-slow'], 'lease from standby', 4_000],
    ['standby-down', ['standby-down'], 'lease from main', 500],
    ['standby-down with main-down', ['main-down', 'standby-down'], 'SERVICE_UNAVAILABLE', 500],
    ['events-down', ['events-down'], 'lease from main', 500],
  ];

  it.each(cases)('%s', async (_label, names, expected, attemptTimeoutMs) => {
    const onMock = await drillOnMock(names, attemptTimeoutMs);
    await fetch(`${adminUrl}/faults`, { method: 'DELETE' });
    const inMsw = await drillInMsw(names, attemptTimeoutMs);
    expect(onMock.checkout).toBe(expected);
    expect(onMock.events).toBe(names.includes('events-down') ? 'SERVICE_UNAVAILABLE' : '0 events');
    expect(inMsw).toEqual(onMock);
  });
});

describe('scenarioHandlers', () => {
  it('refuses an unknown name, and idp-down or events-down without their URL', () => {
    const urls = { mainUrl: 'http://m.test', standbyUrl: 'http://s.test' };
    expect(() => scenarioHandlers('main-on-fire' as Name, urls)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => scenarioHandlers('idp-down', urls)).toThrow(/idpUrl/);
    expect(() => scenarioHandlers('events-down', urls)).toThrow(/eventUrl/);
  });
});
