import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CAPTIVE_PORTAL_PAGE } from './failure.js';
import { isScenarioName, scenarioHandlers, scenarioNames } from './index.js';

// What each named drill does to a request, with msw alone (the same drills against the mock
// server, through the SDK, are in test/testing-kit/scenarios.test.ts).
const urls = {
  mainUrl: 'https://main.licensing.test',
  standbyUrl: 'https://standby.licensing.test',
  idpUrl: 'https://idp.licensing.test',
  eventUrl: 'https://events.licensing.test',
};
const server = setupServer();
// The healthy services, behind the drill's handlers.
const healthy = Object.values(urls).map((base) =>
  http.all(`${base}/*`, () => HttpResponse.text('healthy')),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => server.close());

/** `net` for a network error, `held` when unanswered after 50 ms, else status and body start. */
async function meet(url: string): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 50);
  try {
    const res = await fetch(url, { signal: controller.signal });
    return `${res.status} ${(await res.text()).slice(0, 15)}`;
  } catch {
    return controller.signal.aborted ? 'held' : 'net';
  } finally {
    clearTimeout(timer);
  }
}

const drill = (name: (typeof scenarioNames)[number]) => {
  server.resetHandlers(...healthy);
  server.use(...scenarioHandlers(name, urls));
};

describe('scenarioHandlers', () => {
  it.each([
    ['main-down', 'net', '200 healthy'],
    ['main-hang', 'held', '200 healthy'],
    ['main-503', '503 <!DOCTYPE html>', '200 healthy'],
    ['main-rate-limited', '429 {"error":"too_m', '200 healthy'],
    ['captive-portal', `200 ${CAPTIVE_PORTAL_PAGE.slice(0, 15)}`, '200 healthy'],
  ] as const)(
    '%s breaks every main route and leaves the standby alone',
    async (name, main, standby) => {
      drill(name);
      expect(await meet(`${urls.mainUrl}/authz/.jwt?ItemA`)).toBe(main);
      expect(await meet(`${urls.mainUrl}/.well-known/jwks.json`)).toBe(main);
      expect(await meet(`${urls.standbyUrl}/authz/.jwt?ItemA`)).toBe(standby);
    },
  );

  it('main-rate-limited sends Retry-After: 1', async () => {
    drill('main-rate-limited');
    const res = await fetch(`${urls.mainUrl}/authz/.jwt`);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it("main-jwks-outage breaks main's JWKS only", async () => {
    drill('main-jwks-outage');
    expect(await meet(`${urls.mainUrl}/.well-known/jwks.json`)).toBe('503 <!DOCTYPE html>');
    expect(await meet(`${urls.mainUrl}/authz/.jwt?ItemA`)).toBe('200 healthy');
  });

  it.each([
    ['idp-down', urls.idpUrl],
    ['standby-down', urls.standbyUrl],
    ['events-down', urls.eventUrl],
  ] as const)('%s resets its service only', async (name, broken) => {
    drill(name);
    expect(await meet(`${broken}/anything`)).toBe('net');
    expect(await meet(`${urls.mainUrl}/authz/.jwt`)).toBe('200 healthy');
  });

  it('standby-slow answers the standby 2.5 s late, then as the next handler says', async () => {
    server.resetHandlers(...healthy);
    server.use(...scenarioHandlers('standby-slow', { ...urls, pass: 'next' }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answered = '';
    const pending = fetch(`${urls.standbyUrl}/authz/.jwt`).then(async (res) => {
      answered = await res.text();
    });
    await vi.advanceTimersByTimeAsync(2_499);
    expect(answered).toBe('');
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(answered).toBe('healthy');
  });

  it('names the same drills as isScenarioName, and refuses others', () => {
    expect(scenarioNames.every(isScenarioName)).toBe(true);
    expect(isScenarioName('main-on-fire')).toBe(false);
    expect(() => scenarioHandlers('main-on-fire' as never, urls)).toThrow(TypeError);
    const { idpUrl: _i, eventUrl: _e, ...bare } = urls;
    expect(() => scenarioHandlers('idp-down', bare)).toThrow(/idpUrl/);
    expect(() => scenarioHandlers('events-down', bare)).toThrow(/eventUrl/);
  });
});
