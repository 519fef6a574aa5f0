import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  authzHandler,
  enabledHandler,
  mainJwksHandler,
  makeClient,
  PEM,
} from '../../test/helpers/licensing-test-setup.js';
import { createEventHub } from '../client-hooks.js';
import { isLicensingError, LicensingError } from '../errors.js';
import { resolveLicensingClientOptions } from '../options/licensing-client.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { LicensingResponse, LicensingTransport } from '../transport/licensing-transport.js';
import type { FailureReason } from '../types.js';
import { createStrategyB } from './strategy-b.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => server.close());

// Probe timing pinned (no jitter, no backoff) for the tests below; both have their own tests.
const B = {
  failover: {
    strategy: 'B' as const,
    mainAttempts: 2,
    probeIntervalMs: 30_000,
    probeMaxIntervalMs: 30_000,
    probeJitterRatio: 0,
  },
};

describe('Strategy B', () => {
  it('checks /enabled once for concurrent calls, then sticks to the standby with zero main attempts', async () => {
    const main = authzHandler('main', [503]);
    const standby = authzHandler('standby', ['ok']);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const enabled = enabledHandler(async () => {
      await gate;
      return true;
    });
    server.use(
      main.handler,
      standby.handler,
      enabled.handler,
      mainJwksHandler(() => false).handler,
    );
    const { client, named } = makeClient(B);
    const calls = [client.checkout(['A']), client.checkout(['B']), client.checkout(['C'])];
    await vi.waitFor(() => expect(main.hits.count).toBe(6));
    await vi.waitFor(() => expect(enabled.hits.count).toBe(1));
    open();
    const results = await Promise.all(calls);
    expect(results.map((r) => r.leases[0]!.servedBy)).toEqual(['standby', 'standby', 'standby']);
    expect(enabled.hits.count).toBe(1);
    expect(named('failover')).toHaveLength(1);
    expect(client.activeService).toBe('standby');

    // Sticky: further calls make no main attempts at all.
    const lease = (await client.checkout(['D'])).leases[0]!;
    await client.renew(lease);
    await client.release(lease);
    expect(main.hits.count).toBe(6);
    expect(standby.hits.count).toBe(6);
    await client.close();
  });

  it('gives STANDBY_DORMANT when /enabled reports false, never touching /authz on the standby', async () => {
    const main = authzHandler('main', ['reset']);
    const standby = authzHandler('standby', ['ok']);
    const enabled = enabledHandler(() => false);
    server.use(main.handler, standby.handler, enabled.handler);
    const { client } = makeClient(B);
    const error = await client.checkout(['A']).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('STANDBY_DORMANT');
    expect(standby.hits.count).toBe(0);
    expect(client.activeService).toBe('main');
  });

  it('fails back to main when the standby answers 403, in the same call', async () => {
    const main = authzHandler('main', [503, 503, 'ok']);
    const standby = authzHandler('standby', ['ok', 'dormant']);
    server.use(
      main.handler,
      standby.handler,
      enabledHandler(() => true).handler,
      mainJwksHandler(() => false).handler,
    );
    const { client, named } = makeClient(B);
    expect((await client.checkout(['A'])).leases[0]!.servedBy).toBe('standby');
    // Standby now dormant: 403 → back to main for this call, which main serves.
    expect((await client.checkout(['A'])).leases[0]!.servedBy).toBe('main');
    expect(named('failback')).toEqual([
      { from: 'standby', to: 'main', reason: 'standby-forbidden' },
    ]);
    expect(client.activeService).toBe('main');
    await client.close();
  });

  it('fails back when the probe finds main answering', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let mainUp = false;
    const main = authzHandler('main', [503, 503, 'ok']);
    const probe = mainJwksHandler(() => mainUp);
    const enabled = enabledHandler(() => true);
    server.use(
      main.handler,
      authzHandler('standby', ['ok']).handler,
      enabled.handler,
      probe.handler,
    );
    const { client, named } = makeClient(B);
    const first = client.checkout(['A']);
    await vi.advanceTimersByTimeAsync(10);
    expect((await first).leases[0]!.servedBy).toBe('standby');

    await vi.advanceTimersByTimeAsync(30_000);
    expect(probe.hits.count).toBe(1);
    expect(client.activeService).toBe('standby');
    mainUp = true;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(probe.hits.count).toBe(2);
    expect(client.activeService).toBe('main');
    expect(named('failback')).toEqual([{ from: 'standby', to: 'main', reason: 'main-recovered' }]);
    // No more probes once back on main.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(probe.hits.count).toBe(2);
    expect(main.hits.count).toBe(2);
    const next = client.checkout(['A']);
    await vi.advanceTimersByTimeAsync(10);
    expect((await next).leases[0]!.servedBy).toBe('main');
    await client.close();
  });

  it('fails back when a probe round finds the standby disabled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let standbyEnabled = true;
    server.use(
      authzHandler('main', [503]).handler,
      authzHandler('standby', ['ok']).handler,
      enabledHandler(() => standbyEnabled).handler,
      mainJwksHandler(() => false).handler,
    );
    const { client, named } = makeClient(B);
    const first = client.checkout(['A']);
    await vi.advanceTimersByTimeAsync(10);
    await first;
    standbyEnabled = false;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(client.activeService).toBe('main');
    expect(named('failback')).toEqual([
      { from: 'standby', to: 'main', reason: 'standby-disabled' },
    ]);
    await client.close();
  });

  it('stops probing on close()', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const probe = mainJwksHandler(() => false);
    server.use(
      authzHandler('main', [503]).handler,
      authzHandler('standby', ['ok']).handler,
      enabledHandler(() => true).handler,
      probe.handler,
    );
    const { client } = makeClient(B);
    const first = client.checkout(['A']);
    await vi.advanceTimersByTimeAsync(10);
    await first;
    await client.close();
    await vi.advanceTimersByTimeAsync(300_000);
    expect(probe.hits.count).toBe(0);
  });

  it('aborts a call waiting on the shared /enabled check without cancelling the others', async () => {
    server.use(authzHandler('main', [503]).handler, authzHandler('standby', ['ok']).handler);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const enabled = enabledHandler(async () => {
      await gate;
      return true;
    });
    server.use(enabled.handler, mainJwksHandler(() => false).handler);
    const { client } = makeClient(B);
    const controller = new AbortController();
    const aborted = client.checkout(['A'], { signal: controller.signal });
    const other = client.checkout(['B']);
    await vi.waitFor(() => expect(enabled.hits.count).toBe(1));
    controller.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');
    open();
    expect((await other).leases[0]!.servedBy).toBe('standby');
    await client.close();
  });

  it('jitters the probe interval so apps that failed over together probe apart', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const probe = mainJwksHandler(() => false);
    server.use(
      authzHandler('main', [503]).handler,
      authzHandler('standby', ['ok']).handler,
      enabledHandler(() => true).handler,
      probe.handler,
    );
    // Two apps, the same failover moment (t = 0), different random draws.
    const failover = { ...B.failover, probeJitterRatio: 0.5 };
    const early = makeClient({ ...B, random: () => 0, failover });
    const late = makeClient({ ...B, random: () => 0.8, failover });
    const checkouts = Promise.all([early.client.checkout(['A']), late.client.checkout(['A'])]);
    let now = 10;
    await vi.advanceTimersByTimeAsync(now);
    await checkouts;
    /** Advances fake time to `target` ms after the failover. */
    const at = async (target: number) => {
      await vi.advanceTimersByTimeAsync(target - now);
      now = target;
    };
    // Never sooner than the interval: at most one main request per interval per app.
    await at(29_999);
    expect(probe.hits.count).toBe(0);
    // (The apps failed over within the first 10 ms of fake time.)
    await at(30_010);
    expect(probe.hits.count).toBe(1); // the early app, 30 s after its failover
    await at(41_999);
    expect(probe.hits.count).toBe(1);
    await at(42_010);
    expect(probe.hits.count).toBe(2); // the late app, 30 s x (1 + 0.8 x 0.5) = 42 s after
    await early.client.close();
    await late.client.close();
  });

  it('probes less and less often while main stays down, up to probeMaxIntervalMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const probe = mainJwksHandler(() => false);
    server.use(
      authzHandler('main', [503]).handler,
      authzHandler('standby', ['ok']).handler,
      enabledHandler(() => true).handler,
      probe.handler,
    );
    const failover = { ...B.failover, probeMaxIntervalMs: 120_000 };
    const { client } = makeClient({ ...B, random: () => 0, failover });
    const first = client.checkout(['A']);
    await vi.advanceTimersByTimeAsync(10);
    await first;
    const probedAt: number[] = [];
    for (let second = 1; second <= 600; second++) {
      const before = probe.hits.count;
      await vi.advanceTimersByTimeAsync(1_000);
      if (probe.hits.count > before) probedAt.push(second);
    }
    // 30 s, then 60, 120 and 120 (the cap) after each failed probe.
    expect(probedAt).toEqual([30, 90, 210, 330, 450, 570]);
    await client.close();
  });
});

describe('Strategy B with a fake operation and a fake transport (no client, no HTTP)', () => {
  const failed = (reason: FailureReason, outage = true) =>
    new FailedAttempt({
      ok: false,
      outage,
      reason,
      error: new LicensingError('SERVICE_UNAVAILABLE', reason),
    });

  function strategy(standbyEnabled: boolean) {
    const asked: string[] = [];
    const transport: LicensingTransport = {
      signingKeyId: undefined,
      async request(service, request) {
        asked.push(`${service} ${request.path}`);
        if (service === 'standby' && request.path === '/enabled') {
          return { value: standbyEnabled } as LicensingResponse;
        }
        throw failed('connection-refused');
      },
    };
    const events: string[] = [];
    const hub = createEventHub({});
    hub.on('failover', () => events.push('failover'));
    hub.on('failback', ({ reason }) => events.push(`failback ${reason}`));
    const { failover } = resolveLicensingClientOptions({
      mainUrl: 'http://main.test',
      standbyUrl: 'http://standby.test',
      auth: { serviceKeyHash: 'ab'.repeat(32) },
      trust: { rootCertificates: [{ pem: PEM }] },
      failover: { strategy: 'B', mainAttempts: 2, backoffBaseMs: 0, backoffMaxMs: 0 },
    });
    const run = createStrategyB({
      failover,
      random: () => 0,
      now: Date.now,
      events: hub,
      transport,
    });
    return { run, asked, events };
  }

  it('asks /enabled once, then sticks to the standby with no main attempt until it refuses', async () => {
    const { run, asked, events } = strategy(true);
    let standbyDormant = false;
    const tried: string[] = [];
    const operation = async (service: 'main' | 'standby') => {
      tried.push(service);
      if (service === 'main') throw failed('connection-refused');
      if (standbyDormant) throw failed('standby-dormant', false);
      return 'lease';
    };
    try {
      expect(await run.run(operation)).toBe('lease');
      expect(await run.run(operation)).toBe('lease');
      expect(tried).toEqual(['main', 'main', 'standby', 'standby']);
      expect(asked).toEqual(['standby /enabled']);
      expect(events).toEqual(['failover']);
      standbyDormant = true;
      tried.length = 0;
      // The standby's refusal sends this very call back to main (down too: it fails).
      await expect(run.run(operation)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(tried[0]).toBe('standby');
      expect(tried.slice(1, 3)).toEqual(['main', 'main']);
      expect(events).toContain('failback standby-forbidden');
    } finally {
      run.close();
    }
  });

  it('never asks the standby when /enabled says false: STANDBY_DORMANT with every main attempt', async () => {
    const { run, events } = strategy(false);
    const tried: string[] = [];
    const error = await run
      .run(async (service) => {
        tried.push(service);
        throw failed('connection-refused');
      })
      .catch((e: unknown) => e);
    run.close();
    expect(error).toMatchObject({ code: 'STANDBY_DORMANT' });
    expect(((error as Error).cause as AggregateError).errors).toHaveLength(2);
    expect(tried).toEqual(['main', 'main']);
    expect(events).toEqual([]);
  });
});
