import { type HttpHandler, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isLicensingError, type LicensingError } from '../errors.js';
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

  it('standby-slow answers the standby 2.5 s late, then as the handlers behind it say', async () => {
    server.resetHandlers(...healthy);
    server.use(...scenarioHandlers('standby-slow', urls));
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

  it('standby-slow takes delayMs', async () => {
    server.resetHandlers(...healthy);
    server.use(...scenarioHandlers('standby-slow', { ...urls, delayMs: 40 }));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answered = '';
    const pending = fetch(`${urls.standbyUrl}/enabled`).then(async (res) => {
      answered = await res.text();
    });
    await vi.advanceTimersByTimeAsync(39);
    expect(answered).toBe('');
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(answered).toBe('healthy');
  });

  it('names the same drills as isScenarioName', () => {
    expect(scenarioNames.every(isScenarioName)).toBe(true);
    expect(isScenarioName('main-on-fire')).toBe(false);
  });
});

describe('scenarioHandlers arguments', () => {
  const { idpUrl: _i, eventUrl: _e, ...bare } = urls;
  const refusal = (call: () => unknown) => {
    try {
      call();
    } catch (error) {
      expect(isLicensingError(error)).toBe(true);
      return { code: (error as LicensingError).code, message: (error as Error).message };
    }
    throw new Error('did not throw');
  };

  it.each([
    ['an unknown name', () => scenarioHandlers('main-on-fire' as never, urls), /main-on-fire/],
    ['no options', () => scenarioHandlers('main-down', undefined as never), /needs options/],
    [
      'no mainUrl',
      () => scenarioHandlers('main-down', { standbyUrl: urls.standbyUrl } as never),
      /`mainUrl`/,
    ],
    [
      'no standbyUrl',
      () => scenarioHandlers('standby-down', { mainUrl: urls.mainUrl } as never),
      /`standbyUrl`/,
    ],
    ['idp-down without idpUrl', () => scenarioHandlers('idp-down', bare), /`idpUrl`/],
    ['events-down without eventUrl', () => scenarioHandlers('events-down', bare), /`eventUrl`/],
    [
      'a relative mainUrl',
      () => scenarioHandlers('main-503', { ...urls, mainUrl: '/main' }),
      /`mainUrl`/,
    ],
    [
      'a negative delayMs',
      () => scenarioHandlers('standby-slow', { ...urls, delayMs: -1 }),
      /`delayMs`/,
    ],
    [
      'a fractional delayMs',
      () => scenarioHandlers('standby-slow', { ...urls, delayMs: 0.5 }),
      /`delayMs`/,
    ],
    [
      'a bad pass',
      () => scenarioHandlers('standby-slow', { ...urls, pass: 'real' as never }),
      /`pass`/,
    ],
  ])('refuses %s with INVALID_ARGUMENT naming it', (_label, call, message) => {
    const { code, message: text } = refusal(call);
    expect(code).toBe('INVALID_ARGUMENT');
    expect(text).toMatch(message);
  });

  it('ignores members it does not use, so a mock server’s info passes as it is', () => {
    expect(
      scenarioHandlers('main-down', { ...urls, port: 8787, apiKey: 'k' } as never),
    ).not.toEqual([]);
  });
});

describe('a drill the app’s requests miss', () => {
  const local = {
    mainUrl: 'http://localhost:8787/main',
    standbyUrl: 'http://localhost:8787/standby',
    idpUrl: 'http://localhost:8787/idp',
  };
  const loopback = 'http://127.0.0.1:8787';
  let warn: ReturnType<typeof vi.spyOn>;

  beforeAll(() => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => warn.mockClear());
  afterAll(() => warn.mockRestore());

  /** The healthy services on both spellings, behind the drill. */
  const drillOn = (drill: HttpHandler[]) => {
    server.resetHandlers(
      http.all(`${loopback}/*`, () => HttpResponse.text('healthy')),
      http.all('http://localhost:8787/*', () => HttpResponse.text('healthy')),
      ...healthy,
    );
    server.use(...drill);
  };

  it('warns once, naming the drill’s URL and the one the app used (localhost vs 127.0.0.1)', async () => {
    drillOn(scenarioHandlers('main-down', local));
    expect(await meet(`${loopback}/main/authz/.jwt?ItemA`)).toBe('200 healthy');
    expect(await meet(`${loopback}/main/.well-known/jwks.json`)).toBe('200 healthy');
    expect(warn).toHaveBeenCalledTimes(1);
    const message = String(warn.mock.calls[0]![0]);
    expect(message).toContain("scenarioHandlers('main-down') breaks http://localhost:8787/main");
    expect(message).toContain(`GET ${loopback}/main/authz/.jwt?ItemA`);
    expect(message).toContain(`mainUrl (${loopback}/main)`);
  });

  it('warns for a port the client does not use', async () => {
    drillOn(
      scenarioHandlers('standby-down', {
        ...urls,
        standbyUrl: 'https://standby.licensing.test:8443',
      }),
    );
    expect(await meet(`${urls.standbyUrl}/enabled`)).toBe('200 healthy');
    expect(String(warn.mock.calls[0]![0])).toContain(`standbyUrl (${urls.standbyUrl})`);
  });

  it('stays quiet when the drill matches, and for requests to the other services', async () => {
    drillOn(scenarioHandlers('standby-slow', { ...urls, delayMs: 0 }));
    expect(await meet(`${urls.mainUrl}/authz/.jwt?ItemA`)).toBe('200 healthy');
    expect(await meet(`${urls.standbyUrl}/authz/.jwt?ItemA`)).toBe('200 healthy');
    drillOn(scenarioHandlers('main-down', local));
    expect(await meet(`${loopback}/idp/token`)).toBe('200 healthy');
    expect(await meet(`${local.standbyUrl}/enabled`)).toBe('200 healthy');
    expect(await meet(`${local.mainUrl}/authz/.jwt`)).toBe('net');
    expect(warn).not.toHaveBeenCalled();
  });

  it('leaves unhandled requests unhandled', async () => {
    server.resetHandlers();
    server.use(...scenarioHandlers('main-down', urls));
    expect(await meet('https://elsewhere.licensing.test/authz/.jwt')).toBe('net');
  });
});
