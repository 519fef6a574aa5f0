// `client.has`, `client.status`, `client.subscribe` and `client.close({ release })` on msw fakes
// with real signed tokens: what the client holds after each operation, the same snapshot until
// something changes, one notification per change, expiry on the clock, and release on close.

import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { answerAuthz, parseAuthzQuery } from '../../test/helpers/fake-licensing.js';
import {
  authzHandler,
  type Hits,
  makeClient,
  NOW,
  seededStore,
  serviceClock,
} from '../../test/helpers/licensing-test-setup.js';
import { createEventHub } from '../client-hooks.js';
import { InvalidOptionError, isLicensingError, LeaseStoreInvalidError } from '../errors.js';
import type { Lease } from '../types.js';
import { createClientStatus } from './client-status.js';
import type { UseMark } from './use-mark.js';

const server = setupServer();

/** A fake service's good answer to `request` (a lease per item, or a release). */
function grant(request: Request, service: 'main' | 'standby') {
  const body = answerAuthz(
    new URL(request.url).search,
    service,
    Math.floor(serviceClock.now() / 1000),
    [],
  );
  return new HttpResponse(body, { headers: { 'content-type': 'application/jwt' } });
}

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  serviceClock.now = () => NOW;
});
afterAll(() => server.close());

/** The release requests among `hits`, as lists of lease ids. */
function releases(hits: Hits): string[][] {
  return hits.requests
    .map((request) => parseAuthzQuery(new URL(request.url).search).release)
    .filter((ids): ids is string[] => ids !== undefined);
}

function counting() {
  const calls = { count: 0 };
  return { calls, listener: () => void calls.count++ };
}

describe('client.status() and client.has()', () => {
  it('starts empty and returns the same snapshot until something changes', async () => {
    server.use(authzHandler('main', ['ok']).handler);
    const { client } = makeClient();
    const first = client.status();
    expect(first).toEqual({ activeService: 'main', leases: [], online: false });
    expect(client.status()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(client.has('ItemA')).toBe(false);

    const { calls, listener } = counting();
    client.subscribe(listener);
    const { leases } = await client.checkout(['ItemA', 'ItemB']);
    const after = client.status();
    expect(after).not.toBe(first);
    expect(after).toEqual({ activeService: 'main', leases, online: true });
    expect(client.status()).toBe(after);
    expect(calls.count).toBe(1);
    expect(client.has('ItemA')).toBe(true);
    expect(client.has('ItemB')).toBe(true);
    expect(client.has('ItemC')).toBe(false);
    await client.close();
  });

  it('follows a failover: the standby serves, activeService says so', async () => {
    server.use(authzHandler('main', [503]).handler, authzHandler('standby', ['ok']).handler);
    const { client } = makeClient({ failover: { mainAttempts: 1 } });
    const seen: string[] = [];
    client.subscribe(() => seen.push(client.status().activeService));
    await client.checkout(['ItemA']);
    expect(client.status()).toMatchObject({
      activeService: 'standby',
      online: true,
      leases: [{ item: 'ItemA', servedBy: 'standby' }],
    });
    // The failover event changed it first, then the call's result (the lease).
    expect(seen).toEqual(['standby', 'standby']);
    await client.close();
  });

  it('records the last error and whether a service answered; a success clears it', async () => {
    const main = authzHandler('main', ['reset', 'ok']);
    server.use(main.handler, authzHandler('standby', ['reset']).handler);
    const { client } = makeClient({ failover: { mainAttempts: 1, breaker: false } });
    const error = await client.checkout(['ItemA']).catch((e: unknown) => e);
    expect(isLicensingError(error) && error.code).toBe('SERVICE_UNAVAILABLE');
    expect(client.status()).toMatchObject({ online: false, lastError: error, leases: [] });

    await client.checkout(['ItemA']);
    const status = client.status();
    expect(status.online).toBe(true);
    expect('lastError' in status).toBe(false);
    await client.close();
  });

  it('a refusal is an answer: online stays true, lastError is the refusal', async () => {
    server.use(authzHandler('main', ['ok', 401]).handler);
    const { client } = makeClient();
    await client.checkout(['ItemA']);
    await expect(client.checkout(['ItemB'])).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(client.status()).toMatchObject({ online: true, lastError: { code: 'UNAUTHORIZED' } });
    // A programming error says nothing about the license: the status does not change.
    const before = client.status();
    await expect(client.checkout([])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(client.status()).toBe(before);
    await client.close();
  });

  it('release drops the leases at once, even when the release request fails', async () => {
    server.use(authzHandler('main', ['ok', 'reset']).handler);
    const { client } = makeClient({ failover: { mainAttempts: 1, breaker: false } });
    server.use(authzHandler('standby', ['reset']).handler);
    const { leases } = await client.checkout(['ItemA', 'ItemB']);
    await expect(client.release(leases[0]!)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(client.has('ItemA')).toBe(false);
    expect(client.status().leases.map((lease) => lease.item)).toEqual(['ItemB']);
    await client.close();
  });

  it('a renewal takes the place of the lease it renewed', async () => {
    server.use(authzHandler('main', ['ok']).handler);
    const { client } = makeClient();
    const { leases } = await client.checkout(['ItemA', 'ItemB']);
    const renewed = await client.renew(leases[0]!);
    expect(client.status().leases).toEqual([renewed, leases[1]]);
    await client.close();
  });

  it('restore() holds the restored leases and sends nothing, so online stays as it was', async () => {
    server.use(authzHandler('main', ['ok']).handler);
    const shared = seededStore();
    const a = makeClient({ leaseStore: shared });
    await a.client.checkout(['ItemA']);
    const b = makeClient({ leaseStore: shared });
    const { leases } = await b.client.restore();
    expect(leases.map((lease) => lease.item)).toEqual(['ItemA']);
    expect(b.client.status()).toMatchObject({ online: false, leases });
    // Restoring nothing changes nothing: no new snapshot, no notification.
    const c = makeClient({ leaseStore: seededStore() });
    const before = c.client.status();
    const { calls, listener } = counting();
    c.client.subscribe(listener);
    await c.client.restore();
    expect(c.client.status()).toBe(before);
    expect(calls.count).toBe(0);
    await c.client.close();
    expect(b.client.has('ItemA')).toBe(true);
    await a.client.close();
    await b.client.close();
  });

  it('a lease leaves the status when it expires on the clock, and listeners are told', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: NOW });
    serviceClock.now = () => Date.now();
    server.use(authzHandler('main', ['ok']).handler);
    const { client } = makeClient({ now: () => Date.now() });
    const checkedOut = client.checkout(['ItemA']);
    await vi.advanceTimersByTimeAsync(10);
    const [lease] = (await checkedOut).leases;
    const { calls, listener } = counting();
    client.subscribe(listener);

    await vi.advanceTimersByTimeAsync(lease!.claims.exp * 1000 - Date.now() - 1);
    expect(client.has('ItemA')).toBe(true);
    expect(calls.count).toBe(0);
    await vi.advanceTimersByTimeAsync(2);
    expect(client.has('ItemA')).toBe(false);
    expect(client.status().leases).toEqual([]);
    expect(calls.count).toBe(1);
    await client.close();
  });

  it('has() reads the corrected clock, with no network call', async () => {
    let local = NOW;
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient({ now: () => local });
    const [lease] = (await client.checkout(['ItemA'])).leases;
    local = lease!.claims.exp * 1000 - 1;
    expect(client.has('ItemA')).toBe(true);
    local += 1;
    expect(client.has('ItemA')).toBe(false);
    // status() sees it too, and tells listeners once the current code is done.
    const { calls, listener } = counting();
    client.subscribe(listener);
    expect(client.status().leases).toEqual([]);
    expect(calls.count).toBe(0);
    await Promise.resolve();
    expect(calls.count).toBe(1);
    expect(main.hits.count).toBe(1);
    await client.close();
  });

  it('keepers: a renewal on main of a standby lease replaces it, one lease per item', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: NOW });
    serviceClock.now = () => Date.now();
    let mainUp = false;
    server.use(
      http.get('http://main.test/authz/.jwt', ({ request }) =>
        mainUp ? grant(request, 'main') : HttpResponse.error(),
      ),
      authzHandler('standby', ['ok']).handler,
    );
    const { client } = makeClient({
      now: () => Date.now(),
      random: () => 0,
      failover: { mainAttempts: 1, breaker: false },
    });
    const checkedOut = client.checkout(['ItemA']);
    await vi.advanceTimersByTimeAsync(10);
    const { leases } = await checkedOut;
    expect(leases[0]!.servedBy).toBe('standby');
    client.keepAlive(leases, { maxRefreshIntervalMs: 1_000 });
    mainUp = true;
    await vi.advanceTimersByTimeAsync(1_100);
    // The renewal's signature check runs on real WebCrypto, which fake timers do not wait for.
    await vi.waitFor(() => expect(client.status().leases[0]?.servedBy).toBe('main'));
    const { leases: held } = client.status();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ item: 'ItemA', servedBy: 'main' });
    expect(client.status().activeService).toBe('main');
    const closing = client.close();
    await vi.advanceTimersByTimeAsync(10);
    await closing;
  });

  it('a throwing listener is reported to logger.warn and the others still run', async () => {
    server.use(authzHandler('main', ['ok']).handler);
    const warned: string[] = [];
    const { client } = makeClient({ logger: { warn: (message) => warned.push(message) } });
    const { calls, listener } = counting();
    client.subscribe(() => {
      throw new Error('render failed');
    });
    const unsubscribe = client.subscribe(listener);
    await client.checkout(['ItemA']);
    expect(calls.count).toBe(1);
    expect(warned).toEqual(['a licensing status listener threw']);
    unsubscribe();
    await client.checkout(['ItemB']);
    expect(calls.count).toBe(1);
    await client.close();
  });

  it('refuses a bad item or listener with INVALID_ARGUMENT', async () => {
    const { client } = makeClient();
    expect(() => client.has('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => client.has(42 as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => client.subscribe('x' as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    await client.close();
  });
});

describe('client.close({ release })', () => {
  it('releases every held lease in one request, keepers included, then closes', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    const kept = (await client.checkout(['ItemA'])).leases;
    const loose = (await client.checkout(['ItemB'])).leases;
    client.keepAlive(kept);
    await client.close({ release: true });
    expect(releases(main.hits)).toEqual([[kept[0]!.leaseId, loose[0]!.leaseId]]);
    expect(client.status().leases).toEqual([]);
    await expect(client.checkout(['ItemA'])).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    // Still readable after close.
    expect(client.has('ItemA')).toBe(false);
  });

  it('close() without options keeps the old behaviour: only the keepers release theirs', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    const kept = (await client.checkout(['ItemA'])).leases;
    await client.checkout(['ItemB']);
    client.keepAlive(kept);
    await client.close();
    expect(releases(main.hits)).toEqual([[kept[0]!.leaseId]]);
    expect(client.has('ItemB')).toBe(true);
  });

  it('gives up after timeoutMs and aborts the hanging release', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answered = 0;
    const aborted: boolean[] = [];
    server.use(
      http.get('http://main.test/authz/.jwt', ({ request }) => {
        if (!new URL(request.url).search.startsWith('?release')) {
          answered += 1;
          return grant(request, 'main');
        }
        return new Promise<Response>((resolve) => {
          request.signal.addEventListener('abort', () => {
            aborted.push(true);
            resolve(HttpResponse.error());
          });
        });
      }),
      authzHandler('standby', ['hang']).handler,
    );
    const { client } = makeClient({ failover: { attemptTimeoutMs: 60_000 } });
    const checkedOut = client.checkout(['ItemA']);
    await vi.advanceTimersByTimeAsync(10);
    await checkedOut;
    let closed = false;
    const closing = client.close({ release: true, timeoutMs: 500 }).then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(closed).toBe(true);
    expect(answered).toBe(1);
    expect(aborted).toEqual([true]);
    expect(client.status().leases).toEqual([]);
  });

  it('sends the release with fetch keepalive when asked (what releaseOnPageHide does)', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const inits: Array<{ url: string; keepalive: boolean | undefined }> = [];
    const { client } = makeClient({
      fetch: (input, init) => {
        inits.push({ url: String(input), keepalive: init?.keepalive });
        return fetch(input, init);
      },
    });
    await client.checkout(['ItemA']);
    await client.close({ release: true, keepalive: true });
    expect(inits.map((i) => [new URL(i.url).search.startsWith('?release'), i.keepalive])).toEqual([
      [false, undefined],
      [true, true],
    ]);
  });

  it('one release for concurrent closes; bad options are refused', async () => {
    const main = authzHandler('main', ['ok']);
    server.use(main.handler);
    const { client } = makeClient();
    await client.checkout(['ItemA']);
    await expect(client.close({ timeoutMs: -1 })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(client.close({ release: 'yes' } as never)).rejects.toMatchObject({
      option: 'release',
    });
    await expect(client.close({ relase: true } as never)).rejects.toMatchObject({
      option: 'close options.relase',
    });
    await Promise.all([client.close({ release: true }), client.close({ release: true })]);
    expect(releases(main.hits)).toHaveLength(1);
    expect(main.hits.count).toBe(2);
  });
});

describe('createClientStatus: the heartbeat, the time mark and the store error', () => {
  const MINUTE = 60_000;

  /** A lease of `item` expiring at `exp` (ms). */
  const leaseOf = (item: string, exp: number) =>
    ({ item, leaseId: `L-${item}`, claims: { exp: exp / 1000 } }) as unknown as Lease;

  /** A status on a clock the test moves, a use mark that records, a store error the test sets. */
  function setup() {
    const clock = { at: NOW, now: () => clock.at };
    const used = vi.fn<UseMark['used']>(() => undefined);
    const store = { error: undefined as LeaseStoreInvalidError | undefined };
    const status = createClientStatus({
      clock,
      useMark: { used, flush: async () => {} },
      store: { saveError: () => store.error },
      strategy: { activeService: 'main' },
      events: createEventHub({}),
      logger: undefined,
    });
    /** Holds `leases` as a successful call would. */
    const hold = (leases: Lease[]) => status.track(Promise.resolve(leases), { held: (l) => l });
    return { clock, used, store, status, hold };
  }

  it('ticks at least every 60 s while leases are held, telling the use mark the time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { clock, used, status, hold } = setup();
    await hold([leaseOf('ItemA', NOW + 8 * 3_600_000)]);
    used.mockClear();
    for (let tick = 1; tick <= 3; tick++) {
      clock.at += MINUTE - 1;
      await vi.advanceTimersByTimeAsync(MINUTE - 1);
      expect(used).toHaveBeenCalledTimes(tick - 1);
      clock.at += 1;
      await vi.advanceTimersByTimeAsync(1);
      expect(used).toHaveBeenCalledTimes(tick);
      expect(used).toHaveBeenLastCalledWith(clock.at);
    }
    // One timer at a time.
    expect(vi.getTimerCount()).toBe(1);
    status.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ticks at the earliest exp when it comes before the minute, and not at all once none is held', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { clock, used, status, hold } = setup();
    await hold([leaseOf('ItemA', NOW + 10_000)]);
    used.mockClear();
    clock.at = NOW + 10_000;
    await vi.advanceTimersByTimeAsync(10_001);
    expect(status.held()).toEqual([]);
    expect(status.snapshot().leases).toEqual([]);
    expect(used).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(used).not.toHaveBeenCalled();
  });

  it('sets no timer while no lease is held', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { used, status } = setup();
    await status.track(Promise.resolve('ok'));
    expect(status.snapshot().online).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    expect(used).not.toHaveBeenCalled();
  });

  it('tells the use mark of valid judgements only: has() true, a snapshot with leases', async () => {
    const { clock, used, status, hold } = setup();
    await hold([leaseOf('ItemA', NOW + MINUTE)]);
    used.mockClear();
    clock.at = NOW + 1_000;
    expect(status.has('ItemA')).toBe(true);
    expect(used).toHaveBeenCalledTimes(1);
    expect(used).toHaveBeenLastCalledWith(NOW + 1_000);
    expect(status.has('ItemB')).toBe(false);
    expect(used).toHaveBeenCalledTimes(1);
    status.snapshot();
    expect(used).toHaveBeenCalledTimes(2);
    // Expired on the clock: has() is false and nothing is told, nor by the snapshot that drops it.
    clock.at = NOW + MINUTE;
    expect(status.has('ItemA')).toBe(false);
    expect(status.snapshot().leases).toEqual([]);
    expect(used).toHaveBeenCalledTimes(2);
    status.close();
  });

  it('tells the use mark nothing once closed', async () => {
    const { used, status, hold } = setup();
    await hold([leaseOf('ItemA', NOW + MINUTE)]);
    status.close();
    used.mockClear();
    expect(status.has('ItemA')).toBe(true);
    status.snapshot();
    expect(used).not.toHaveBeenCalled();
  });

  it('shows the store error in the snapshot, and tells listeners when a save it started ends', async () => {
    const { used, store, status, hold } = setup();
    await hold([leaseOf('ItemA', NOW + MINUTE)]);
    const before = status.snapshot();
    expect('storeError' in before).toBe(false);
    const listener = vi.fn();
    status.subscribe(listener);
    // The next judgement starts a save that fails.
    let saved = () => {};
    used.mockImplementationOnce(
      () =>
        new Promise<void>((resolve) => {
          saved = resolve;
        }),
    );
    expect(status.has('ItemA')).toBe(true);
    const failure = new LeaseStoreInvalidError(
      'unwritable',
      'The lease store could not be written',
    );
    store.error = failure;
    saved();
    await vi.waitFor(() => expect(listener).toHaveBeenCalledTimes(1));
    const after = status.snapshot();
    expect(after).not.toBe(before);
    expect(after.storeError).toBe(failure);
    expect(after).toMatchObject({ activeService: 'main', online: true });
    // The next good save clears it.
    store.error = undefined;
    const cleared = status.snapshot();
    expect(cleared).not.toBe(after);
    expect('storeError' in cleared).toBe(false);
    await Promise.resolve();
    expect(listener).toHaveBeenCalledTimes(2);
    status.close();
  });
});

describe('the time mark follows use, through a whole client', () => {
  it('saves the mark about every minute while a lease is held and nothing is asked', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: NOW });
    serviceClock.now = () => Date.now();
    server.use(authzHandler('main', ['ok']).handler);
    const store = seededStore();
    const { client } = makeClient({ now: () => Date.now(), leaseStore: store });
    const checkedOut = client.checkout(['ItemA']);
    await vi.advanceTimersByTimeAsync(10);
    await checkedOut;
    const markIn = async () => JSON.parse((await store.load())!).timeMark as number;
    const start = await markIn();
    await vi.advanceTimersByTimeAsync(3 * 60_000 + 10);
    // No call since the checkout; the heartbeat raised and saved the mark.
    expect(await markIn()).toBeGreaterThan(start + 60_000);
    expect(await markIn()).toBeLessThanOrEqual(Date.now());
    const closing = client.close();
    await vi.advanceTimersByTimeAsync(10);
    await closing;
  });
});
