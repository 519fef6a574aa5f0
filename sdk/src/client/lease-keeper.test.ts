import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseAuthzQuery } from '../../test/helpers/fake-licensing.js';
import {
  authzHandler,
  makeClient,
  NOW,
  seededStore,
  serviceClock,
} from '../../test/helpers/licensing-test-setup.js';

const server = setupServer();
const HOUR = 3_600_000;

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: NOW });
  serviceClock.now = () => Date.now();
});
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  serviceClock.now = () => NOW;
});
afterAll(() => server.close());

function keeperClient(leaseStore = seededStore()) {
  return makeClient({
    leaseStore,
    now: () => Date.now(),
    random: () => 0,
    // The keeper's own retry schedule is under test here, not Strategy A's breaker.
    failover: { mainAttempts: 1, breaker: false },
  });
}

/** The lease ids the store holds, by item. */
async function savedLeaseIds(store: ReturnType<typeof seededStore>) {
  const document = JSON.parse((await store.load()) ?? '{}') as {
    leases: Array<{ item: string; token: string }>;
  };
  return document.leases.map((lease) => {
    const claims = JSON.parse(Buffer.from(lease.token.split('.')[1]!, 'base64url').toString());
    return `${lease.item}:${claims.jti}`;
  });
}

async function settle<T>(promise: Promise<T>): Promise<T> {
  await vi.advanceTimersByTimeAsync(10);
  return promise;
}

/**
 * Advances the fake timers by `ms`, then lets real work finish (WebCrypto settles on a thread of
 * its own: the first use of a kept key checks its chain) until `done()`, for at most 10 s of real
 * time (`process.hrtime`, which fake timers leave alone).
 */
async function advanceUntil(ms: number, done: () => boolean): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  const end = process.hrtime.bigint() + 10_000_000_000n;
  while (!done() && process.hrtime.bigint() < end) {
    await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(0);
  }
}

describe('lease keeper', () => {
  it('renews each lease at refreshAt and replaces it', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client, named } = keeperClient();
    const { leases } = await settle(client.checkout(['ItemA']));
    const keeper = client.keepAlive(leases);
    const lease = leases[0]!;
    expect(lease.refreshAt - lease.claims.iat * 1000).toBe(6 * HOUR);

    await vi.advanceTimersByTimeAsync(lease.refreshAt - Date.now() - 1);
    expect(main.hits.count).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(main.hits.count).toBe(2);
    expect(new URL(main.hits.requests[1]!.url).search).toContain(`ItemA=;leaseId=${lease.leaseId}`);
    const renewed = keeper.get('ItemA')!;
    expect(renewed.leaseId).toBe(lease.leaseId);
    expect(renewed.expiresAt).toBe(lease.expiresAt + 6 * HOUR);
    expect(named('leaseRenewed')).toHaveLength(1);

    // And again six hours later, from the renewed lease.
    await vi.advanceTimersByTimeAsync(6 * HOUR);
    expect(main.hits.count).toBe(3);
    await settle(client.close());
  });

  it('renews no later than maxRefreshIntervalMs after the last renewal', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = keeperClient();
    const { leases } = await settle(client.checkout(['ItemA']));
    client.keepAlive(leases, { maxRefreshIntervalMs: 60_000, jitterRatio: 0 });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(main.hits.count).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(main.hits.count).toBe(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(main.hits.count).toBe(3);
    expect(() => client.keepAlive(leases, { maxRefreshIntervalMs: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', option: 'maxRefreshIntervalMs' }),
    );
    await settle(client.close());
  });

  it('spreads renewals over the last jitterRatio share of the wait, so a fleet does not renew at once', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const renewAfter = async (random: number, jitterRatio?: number) => {
      const { client } = makeClient({
        now: () => Date.now(),
        random: () => random,
        failover: { mainAttempts: 1, breaker: false },
      });
      const { leases } = await settle(client.checkout(['ItemA']));
      const start = Date.now();
      const hitsBefore = main.hits.count;
      client.keepAlive(leases, jitterRatio === undefined ? {} : { jitterRatio });
      let waited = 0;
      while (main.hits.count === hitsBefore) {
        await vi.advanceTimersByTimeAsync(60_000);
        waited = Date.now() - start;
      }
      await settle(client.close());
      return waited;
    };
    // The wait to refreshAt is 6 h (less the 10 ms settle), seen here to the minute; with the
    // default ratio 0.1 a renewal comes up to 36 min early, random × 36 min.
    expect(await renewAfter(0)).toBe(6 * HOUR);
    expect(await renewAfter(0.5)).toBe(6 * HOUR - 18 * 60_000);
    expect(await renewAfter(0.75)).toBe(6 * HOUR - 27 * 60_000);
    expect(await renewAfter(0.5, 0.4)).toBe(6 * HOUR - 72 * 60_000);
  });

  it('retries a failed renewal with backoff and never throws', async () => {
    const main = authzHandler('main', ['ok', 503, 503, 503, 503, 'ok']);
    const standby = authzHandler('standby', ['dormant']);
    server.use(main.handler, standby.handler);
    const { client, named } = keeperClient();
    const { leases } = await settle(client.checkout(['ItemA']));
    const keeper = client.keepAlive(leases, { retryBaseMs: 1_000, retryMaxMs: 8_000 });
    await vi.advanceTimersByTimeAsync(6 * HOUR + 10);
    const failed = () => named('renewFailed') as Array<{ retryInMs: number; failures: number }>;
    expect(failed()).toHaveLength(1);
    expect(failed()[0]).toMatchObject({ failures: 1, retryInMs: 500, expired: false });
    await vi.advanceTimersByTimeAsync(500 + 1_000 + 2_000 + 10);
    expect(failed().map((f) => f.retryInMs)).toEqual([500, 1_000, 2_000, 4_000]);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(named('leaseRenewed')).toHaveLength(1);
    expect(keeper.get('ItemA')!.servedBy).toBe('main');
    await settle(client.close());
  });

  it('keeps a lease through failover and failback, checking a standby lease out anew on main', async () => {
    const main = authzHandler('main', ['ok', 'reset', 'ok']);
    const standby = authzHandler('standby', ['ok']);
    server.use(main.handler, standby.handler);
    const { client, named } = keeperClient();
    const { leases } = await settle(client.checkout(['ItemA']));
    const keeper = client.keepAlive(leases);

    // Main down at the first renewal: the standby renews the same lease id.
    await advanceUntil(6 * HOUR + 10, () => named('leaseRenewed').length === 1);
    const onStandby = keeper.get('ItemA')!;
    expect(onStandby.servedBy).toBe('standby');
    expect(onStandby.leaseId).toBe(leases[0]!.leaseId);

    // Main back at the next renewal: it never saw the standby lease, so the item is checked out anew.
    await vi.advanceTimersByTimeAsync(6 * HOUR + 10);
    const back = keeper.get('ItemA')!;
    expect(back.servedBy).toBe('main');
    const lastMain = parseAuthzQuery(new URL(main.hits.requests.at(-1)!.url).search);
    expect(lastMain.items).toEqual([{ item: 'ItemA', attributes: {} }]);
    expect((named('leaseRenewed') as Array<{ reissued: boolean }>).map((e) => e.reissued)).toEqual([
      false,
      true,
    ]);
    await settle(client.close());
  });

  it('saves a lease checked out anew in place of the one it replaces, and keeps the old one on a denial', async () => {
    const main = authzHandler('main', ['ok', 404, 'ok']);
    server.use(main.handler);
    const store = seededStore();
    const { client } = keeperClient(store);
    const { leases } = await settle(client.checkout(['ItemA']));
    const first = leases[0]!;
    const keeper = client.keepAlive(leases, { retryBaseMs: 1_000 });
    // The renewal is refused (main lost the lease id); the retry checks the item out anew.
    await vi.advanceTimersByTimeAsync(6 * HOUR + 10);
    await advanceUntil(1_000, () => keeper.get('ItemA')!.leaseId !== first.leaseId);
    const next = keeper.get('ItemA')!;
    expect(next.leaseId).not.toBe(first.leaseId);
    expect(await savedLeaseIds(store)).toEqual([`ItemA:${next.leaseId}`]);
    expect(client.status().leases.map((lease) => lease.leaseId)).toEqual([next.leaseId]);
    await settle(client.close());

    // A denied re-issue gives nothing in its place: the old lease stays saved until it expires.
    server.resetHandlers(authzHandler('main', ['ok', 404, 'deny'], undefined, ['ItemA']).handler);
    const deniedStore = seededStore();
    const denied = keeperClient(deniedStore);
    const kept = (await settle(denied.client.checkout(['ItemA']))).leases;
    denied.client.keepAlive(kept, { retryBaseMs: 1_000 });
    await vi.advanceTimersByTimeAsync(6 * HOUR + 10);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await savedLeaseIds(deniedStore)).toEqual([`ItemA:${kept[0]!.leaseId}`]);
    await settle(denied.client.close());
  });

  it('reports a re-issue main denies as LICENSE_DENIED and keeps trying', async () => {
    // The renewal is refused (404: main lost the lease id), so the keeper checks the item out
    // anew, and main denies it.
    const main = authzHandler('main', ['ok', 404, 'deny'], undefined, ['ItemA']);
    server.use(main.handler);
    const { client, named } = keeperClient();
    const { leases } = await settle(client.checkout(['ItemA']));
    client.keepAlive(leases, { retryBaseMs: 1_000 });
    await vi.advanceTimersByTimeAsync(6 * HOUR + 10);
    await vi.advanceTimersByTimeAsync(1_000);
    const failed = named('renewFailed') as Array<{ error: { code: string }; failures: number }>;
    expect(failed.map((f) => f.error.code)).toEqual(['NOT_FOUND', 'LICENSE_DENIED']);
    expect(failed[1]!.error).toMatchObject({
      name: 'LicensingError',
      cause: { item: 'ItemA', code: 'noLicenseFound' },
    });
    await settle(client.close());
  });

  it('releases the kept leases on close, even when a listener throws', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const warn = vi.fn();
    const { client } = makeClient({
      now: () => Date.now(),
      random: () => 0,
      logger: { warn },
      on: {
        leaseRenewed: () => {
          throw new Error('listener bug');
        },
      },
    });
    const { leases } = await settle(client.checkout(['ItemA', 'ItemB']));
    client.keepAlive(leases);
    await vi.advanceTimersByTimeAsync(6 * HOUR + 10);
    expect(warn).toHaveBeenCalledTimes(2);
    await settle(client.close());
    const release = parseAuthzQuery(new URL(main.hits.requests.at(-1)!.url).search);
    expect(release.release).toEqual(leases.map((l) => l.leaseId));
    // Nothing is renewed after close.
    const count = main.hits.count;
    await vi.advanceTimersByTimeAsync(24 * HOUR);
    expect(main.hits.count).toBe(count);
  });

  it('close() resolves even when nothing answers', async () => {
    const main = authzHandler('main', ['ok', 'reset']);
    server.use(main.handler, authzHandler('standby', ['reset']).handler);
    const { client } = keeperClient();
    const { leases } = await settle(client.checkout(['ItemA']));
    const keeper = client.keepAlive(leases);
    await expect(settle(keeper.close())).resolves.toBeUndefined();
    expect(keeper.leases).toEqual([]);
  });
});
