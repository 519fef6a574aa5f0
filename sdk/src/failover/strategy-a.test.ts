import { HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  authzHandler,
  fakeIdTokens,
  MAIN,
  makeClient,
  NOW,
  PEM,
} from '../../test/helpers/licensing-test-setup.js';
import { createEventHub } from '../client-hooks.js';
import { isLicensingError, LicensingError } from '../errors.js';
import {
  type LicensingClientOptions,
  resolveLicensingClientOptions,
} from '../options/licensing-client.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import { createStrategyA } from './strategy-a.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => server.close());

async function rejection(promise: Promise<unknown>): Promise<LicensingError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isLicensingError(error)) throw new Error(`expected a LicensingError, got ${String(error)}`);
  return error;
}

describe('Strategy A', () => {
  const failures: Array<[string, Parameters<typeof authzHandler>[1]]> = [
    ['503 HTML', [503]],
    ['500', [500]],
    ['408', [408]],
    ['connection reset', ['reset']],
    ['200 with an HTML body', ['html200']],
  ];

  it.each(failures)(
    'main %s: tries main mainAttempts times, then the standby',
    async (_n, replies) => {
      const main = authzHandler('main', replies);
      const standby = authzHandler('standby', ['ok']);
      server.use(main.handler, standby.handler);
      const { client, named } = makeClient({ failover: { strategy: 'A', mainAttempts: 3 } });
      const { leases } = await client.checkout(['ItemA']);
      expect(leases[0]!.servedBy).toBe('standby');
      expect(main.hits.count).toBe(3);
      expect(standby.hits.count).toBe(1);
      expect(standby.hits.requests[0]!.headers.get('service-signingkeyid')).toBe('root-1');
      expect(client.activeService).toBe('standby');
      expect(named('attemptFailed')).toHaveLength(3);
      expect(named('failover')).toHaveLength(1);
      // Strategy A is not sticky: the next call starts on main again.
      await client.checkout(['ItemB']);
      expect(main.hits.count).toBe(6);
    },
  );

  it('fails over on a DNS failure (TypeError with cause ENOTFOUND)', async () => {
    const standby = authzHandler('standby', ['ok']);
    server.use(standby.handler);
    const dns = vi.fn(async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND main.test'), { code: 'ENOTFOUND' }),
      });
    });
    const { client, named } = makeClient({
      fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
        String(input).startsWith(MAIN) ? dns() : fetch(input, init)) as typeof fetch,
    });
    const { leases } = await client.checkout(['ItemA']);
    expect(leases[0]!.servedBy).toBe('standby');
    expect(dns).toHaveBeenCalledTimes(2);
    expect(named('attemptFailed').map((e) => (e as { reason: string }).reason)).toEqual([
      'dns',
      'dns',
    ]);
  });

  it('retries a DNS failure at once, but backs off after a 503', async () => {
    server.use(authzHandler('standby', ['ok']).handler);
    const dns = async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND main.test'), { code: 'ENOTFOUND' }),
      });
    };
    const failover = { backoffBaseMs: 400, backoffMaxMs: 400 };
    const unresolved = makeClient({
      failover,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
        String(input).startsWith(MAIN) ? dns() : fetch(input, init)) as typeof fetch,
    });
    await unresolved.client.checkout(['ItemA']);
    const first = unresolved.named('attemptFailed')[0] as { reason: string; retryInMs: number };
    expect([first.reason, first.retryInMs]).toEqual(['dns', 0]);

    server.use(authzHandler('main', [503, 503]).handler);
    const overloaded = makeClient({ failover, random: () => 0.5 });
    await overloaded.client.checkout(['ItemA']);
    const wait = overloaded.named('attemptFailed')[0] as { reason: string; retryInMs: number };
    expect(wait.reason).toBe('server-error');
    expect(wait.retryInMs).toBeGreaterThan(0);
  });

  it('plays exact flaky sequences', async () => {
    const main = authzHandler('main', [503, 'ok']);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const { client } = makeClient();
    expect((await client.checkout(['A'])).leases[0]!.servedBy).toBe('main');
    expect([main.hits.count, standby.hits.count]).toEqual([2, 0]);

    const main2 = authzHandler('main', ['reset', 'html200', 'ok']);
    const standby2 = authzHandler('standby', ['ok']);
    server.use(main2.handler, standby2.handler);
    expect((await client.checkout(['A'])).leases[0]!.servedBy).toBe('standby');
    expect([main2.hits.count, standby2.hits.count]).toEqual([2, 1]);
    // The third main reply ('ok') now answers.
    expect((await client.checkout(['A'])).leases[0]!.servedBy).toBe('main');
  });

  it.each([400, 401, 403, 404])('main %s does not fail over', async (status) => {
    const main = authzHandler('main', [status]);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const { client } = makeClient();
    const error = await rejection(client.checkout(['A']));
    expect(error.code).toBe(
      { 400: 'REQUEST_REJECTED', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' }[status],
    );
    expect(main.hits.count).toBe(1);
    expect(standby.hits.count).toBe(0);
  });

  it('refreshes the ID token once after a main 401', async () => {
    const main = authzHandler('main', [401, 'ok']);
    server.use(main.handler);
    const idTokens = fakeIdTokens();
    const { client } = makeClient({}, { idTokens });
    const { leases } = await client.checkout(['A']);
    expect(leases[0]!.servedBy).toBe('main');
    expect(idTokens.calls).toEqual([
      { service: 'main', forceRefresh: undefined },
      { service: 'main', forceRefresh: true },
    ]);
    expect(main.hits.requests[1]!.headers.get('authorization')).toBe('IdToken idtoken-2');
  });

  it('gives SERVICE_UNAVAILABLE with an AggregateError of every attempt when both fail', async () => {
    server.use(authzHandler('main', [503]).handler, authzHandler('standby', ['reset']).handler);
    const { client } = makeClient();
    const error = await rejection(client.checkout(['A']));
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.cause).toBeInstanceOf(AggregateError);
    const causes = (error.cause as AggregateError).errors as LicensingError[];
    expect(causes.map((c) => c.code)).toEqual([
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
    ]);
  });

  it('gives STANDBY_DORMANT (with every attempt as cause) when the standby is dormant', async () => {
    server.use(
      authzHandler('main', ['reset']).handler,
      authzHandler('standby', ['dormant']).handler,
    );
    const { client } = makeClient();
    const error = await rejection(client.checkout(['A']));
    expect(error.code).toBe('STANDBY_DORMANT');
    expect((error.cause as AggregateError).errors).toHaveLength(3);
  });

  it('emits idTokenGrace when the standby gets an expired ID token within grace', async () => {
    server.use(authzHandler('main', [503]).handler, authzHandler('standby', ['ok']).handler);
    const idTokens = fakeIdTokens({ inGrace: true });
    const { client, named } = makeClient({}, { idTokens });
    await client.checkout(['A']);
    expect(named('idTokenGrace')).toEqual([
      { expiresAt: NOW },
      { expiresAt: NOW },
      { expiresAt: NOW },
    ]);
  });

  it("ends the call with the credentials' own error when no ID token can be had, failing over to nothing", async () => {
    const main = authzHandler('main', ['ok']);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const expired = new LicensingError('ID_TOKEN_EXPIRED', 'past grace');
    const idTokens = fakeIdTokens({ fail: expired });
    const { client } = makeClient({}, { idTokens });
    const error = await rejection(client.checkout(['A']));
    expect(error.code).toBe('ID_TOKEN_EXPIRED');
    expect([main.hits.count, standby.hits.count]).toEqual([0, 0]);
  });

  it('keeps a main 401 a refusal when the refresh after it fails, never asking the standby', async () => {
    const main = authzHandler('main', [401]);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const refused = new LicensingError('UNAUTHORIZED', 'provider refused', {
      reason: 'id-token-provider-failed',
    });
    let calls = 0;
    const idTokens = fakeIdTokens();
    const get = idTokens.get.bind(idTokens);
    idTokens.get = async (service, options) => {
      calls += 1;
      if (options?.forceRefresh) throw refused;
      return get(service, options);
    };
    const { client } = makeClient({}, { idTokens });
    const error = await rejection(client.checkout(['A']));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, cause: refused });
    expect([main.hits.count, standby.hits.count, calls]).toEqual([1, 0, 2]);
  });

  it('honours Retry-After (capped) between main attempts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const main = authzHandler('main', [
      () =>
        HttpResponse.json({ error: 'slow_down' }, { status: 429, headers: { 'retry-after': '3' } }),
      'ok',
    ]);
    server.use(main.handler);
    const { client } = makeClient({ failover: { retryAfterMaxMs: 60_000 } });
    const result = client.checkout(['A']);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(main.hits.count).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(main.hits.count).toBe(2);
    expect((await result).leases[0]!.servedBy).toBe('main');

    const capped = authzHandler('main', [
      () => HttpResponse.json({}, { status: 503, headers: { 'retry-after': '3600' } }),
      'ok',
    ]);
    server.use(capped.handler);
    const { client: cappedClient } = makeClient({ failover: { retryAfterMaxMs: 1_000 } });
    const second = cappedClient.checkout(['A']);
    await vi.advanceTimersByTimeAsync(1_001);
    expect(capped.hits.count).toBe(2);
    await second;
  });

  it('times out a hanging main attempt and moves on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const main = authzHandler('main', ['hang']);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const { client, named } = makeClient({
      failover: { attemptTimeoutMs: 5_000, mainAttempts: 2 },
    });
    const result = client.checkout(['A']);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(main.hits.count).toBe(1);
    await vi.advanceTimersByTimeAsync(5_010);
    expect((await result).leases[0]!.servedBy).toBe('standby');
    expect(named('attemptFailed').map((e) => (e as { reason: string }).reason)).toEqual([
      'timeout',
      'timeout',
    ]);
  });
});

describe('Strategy A circuit breaker (the default)', () => {
  it('bounds what an outage costs main: <= 0.5 main attempts per call once it opens', async () => {
    let time = NOW;
    const main = authzHandler('main', ['reset']);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const { client, named } = makeClient({
      now: () => time,
      random: () => 0.5,
      failover: { mainAttempts: 2, breaker: { failureThreshold: 2, halfOpenAfterMs: 10_000 } },
    });
    // Two calls fail on main (2 attempts each): the circuit opens.
    await client.checkout(['A']);
    await client.checkout(['A']);
    expect(main.hits.count).toBe(4);
    expect(named('circuitOpen')).toEqual([{ failures: 2, retryInMs: 10_000 }]);

    // A call every second for two minutes of outage: one trial attempt per (doubling) wait.
    const before = main.hits.count;
    let calls = 0;
    for (let second = 1; second <= 120; second++) {
      time = NOW + second * 1_000;
      const { leases } = await client.checkout(['A']);
      expect(leases[0]!.servedBy).toBe('standby');
      calls += 1;
    }
    const trials = main.hits.count - before;
    // Trials at 10 s, then +20 s, +40 s (jitter pinned at 0): 3 in 120 calls.
    expect(trials).toBe(3);
    expect(trials / calls).toBeLessThanOrEqual(0.5);
    expect(named('circuitOpen').map((e) => (e as { retryInMs: number }).retryInMs)).toEqual([
      10_000, 20_000, 40_000, 80_000,
    ]);

    // Main recovers: the next trial closes the circuit and the call is served by main.
    server.use(authzHandler('main', ['ok']).handler);
    time += 80_000;
    const { leases } = await client.checkout(['A']);
    expect(leases[0]!.servedBy).toBe('main');
    expect(named('circuitClose')).toEqual([{}]);
    expect(named('failback')).toEqual([{ from: 'standby', to: 'main', reason: 'main-answered' }]);
    expect(client.activeService).toBe('main');
  });

  it('sends the calls made while the trial is in flight straight to the standby', async () => {
    let time = NOW;
    let releaseTrial!: () => void;
    const main = authzHandler('main', [
      'reset',
      'reset',
      () =>
        new Promise<Response>((resolve) => {
          releaseTrial = () => resolve(HttpResponse.error());
        }),
    ]);
    server.use(main.handler, authzHandler('standby', ['ok']).handler);
    const { client } = makeClient({
      now: () => time,
      random: () => 0.5,
      failover: { mainAttempts: 1, breaker: { failureThreshold: 2, halfOpenAfterMs: 1_000 } },
    });
    await client.checkout(['A']);
    await client.checkout(['A']);
    await client.checkout(['A']); // skips main while the circuit is open
    time += 1_000;
    const trial = client.checkout(['A']);
    await vi.waitFor(() => expect(main.hits.count).toBe(3));
    const others = await Promise.all([client.checkout(['B']), client.checkout(['C'])]);
    expect(others.map((r) => r.leases[0]!.servedBy)).toEqual(['standby', 'standby']);
    expect(main.hits.count).toBe(3);
    releaseTrial();
    expect((await trial).leases[0]!.servedBy).toBe('standby');
  });

  it('can be turned off: every call tries main mainAttempts times', async () => {
    const main = authzHandler('main', ['reset']);
    server.use(main.handler, authzHandler('standby', ['ok']).handler);
    const { client, named } = makeClient({ failover: { mainAttempts: 2, breaker: false } });
    for (let i = 0; i < 5; i++) await client.checkout(['A']);
    expect(main.hits.count).toBe(10);
    expect(named('circuitOpen')).toEqual([]);
  });
});

describe('abort', () => {
  it('rejects at once with an aborted signal, sending nothing', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    const reason = new Error('stop');
    await expect(client.checkout(['A'], { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(main.hits.count).toBe(0);
  });

  it('aborts an in-flight main attempt without failing over', async () => {
    const main = authzHandler('main', ['hang']);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const { client } = makeClient();
    const controller = new AbortController();
    const result = client.checkout(['A'], { signal: controller.signal });
    await vi.waitFor(() => expect(main.hits.count).toBe(1));
    controller.abort(new Error('user cancelled'));
    await expect(result).rejects.toThrow('user cancelled');
    expect(standby.hits.count).toBe(0);
  });

  it('aborts during the backoff wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const main = authzHandler('main', [503]);
    server.use(main.handler);
    const { client } = makeClient({ failover: { backoffBaseMs: 10_000, backoffMaxMs: 10_000 } });
    const controller = new AbortController();
    const result = client.checkout(['A'], { signal: controller.signal });
    result.catch(() => {});
    await vi.advanceTimersByTimeAsync(10);
    expect(main.hits.count).toBe(1);
    controller.abort(new Error('cancel in backoff'));
    await expect(result).rejects.toThrow('cancel in backoff');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(main.hits.count).toBe(1);
  });

  it('aborts an in-flight standby attempt', async () => {
    server.use(authzHandler('main', [503]).handler);
    const standby = authzHandler('standby', ['hang']);
    server.use(standby.handler);
    const { client } = makeClient();
    const controller = new AbortController();
    const result = client.checkout(['A'], { signal: controller.signal });
    await vi.waitFor(() => expect(standby.hits.count).toBe(1));
    controller.abort(new Error('cancel on standby'));
    await expect(result).rejects.toThrow('cancel on standby');
  });
});

describe('Strategy A with a fake operation (no client, no HTTP)', () => {
  /** An outage of `service` as the transport reports one (a 503). */
  const outage = (service: 'main' | 'standby') =>
    new FailedAttempt({
      ok: false,
      outage: true,
      reason: 'server-error',
      error: new LicensingError('SERVICE_UNAVAILABLE', `${service} answered 503`),
    });

  function strategy(failover: Partial<LicensingClientOptions['failover']> = {}) {
    const events: Array<[string, unknown]> = [];
    const hub = createEventHub({});
    for (const name of ['failover', 'failback', 'attemptFailed', 'circuitOpen'] as const) {
      hub.on(name, (event) => events.push([name, event]));
    }
    const { failover: resolved } = resolveLicensingClientOptions({
      mainUrl: MAIN,
      standbyUrl: 'http://standby.test',
      auth: { serviceKeyHash: 'ab'.repeat(32) },
      trust: { rootCertificates: [{ pem: PEM }] },
      failover: { mainAttempts: 2, backoffBaseMs: 0, backoffMaxMs: 0, ...failover },
    });
    const run = createStrategyA({
      failover: resolved,
      random: () => 0,
      now: () => NOW,
      events: hub,
      transport: {} as never, // Strategy A asks the transport for nothing.
    });
    return { run, events };
  }

  it('returns main’s answer after one try of main, and tells no one', async () => {
    const { run, events } = strategy();
    const tried: string[] = [];
    const value = await run.run(async (service) => {
      tried.push(service);
      return `from ${service}`;
    });
    expect(value).toBe('from main');
    expect(tried).toEqual(['main']);
    expect(events).toEqual([]);
    expect(run.activeService).toBe('main');
  });

  it('tries main mainAttempts times on an outage, then the standby once, and fails back when main answers', async () => {
    const { run, events } = strategy();
    let mainDown = true;
    const tried: string[] = [];
    const operation = async (service: 'main' | 'standby') => {
      tried.push(service);
      if (service === 'main' && mainDown) throw outage('main');
      return `from ${service}`;
    };
    expect(await run.run(operation)).toBe('from standby');
    expect(tried).toEqual(['main', 'main', 'standby']);
    expect(run.activeService).toBe('standby');
    expect(events.map(([name]) => name)).toEqual(['attemptFailed', 'attemptFailed', 'failover']);
    expect(events[2]![1]).toMatchObject({ from: 'main', to: 'standby', reason: 'server-error' });
    mainDown = false;
    expect(await run.run(operation)).toBe('from main');
    expect(events.at(-1)).toEqual([
      'failback',
      { from: 'standby', to: 'main', reason: 'main-answered' },
    ]);
  });

  it('ends the call on what main refuses (no outage): the standby is never asked', async () => {
    const { run } = strategy();
    const tried: string[] = [];
    const refusal = new LicensingError('UNAUTHORIZED', 'main refused the credentials');
    const error = await run
      .run(async (service) => {
        tried.push(service);
        throw new FailedAttempt({
          ok: false,
          outage: false,
          reason: 'unauthorized',
          error: refusal,
        });
      })
      .catch((e: unknown) => e);
    expect(error).toBe(refusal);
    expect(tried).toEqual(['main']);
  });

  it('rejects with SERVICE_UNAVAILABLE carrying every attempt when both fail', async () => {
    const { run } = strategy();
    const error = await run
      .run(async (service) => {
        throw outage(service);
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    const attempts = ((error as Error).cause as AggregateError).errors.map((e: Error) => e.message);
    expect(attempts).toEqual(['main answered 503', 'main answered 503', 'standby answered 503']);
  });
});
