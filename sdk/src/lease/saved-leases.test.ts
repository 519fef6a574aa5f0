import { fakeToken } from '@test/helpers/fake-licensing.js';
import { describe, expect, it, vi } from 'vitest';
import type { LeaseClaims, LeaseStore, SavedLicensingState } from '../types.js';
import { toLease } from './lease.js';
import { createMemoryLeaseStore } from './memory-lease-store.js';
import { createSavedLeases } from './saved-leases.js';

const T0 = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;
const TOLERANCE = 60_000;

function lease(item: string, jti: string, issuedAt = T0, servedBy: 'main' | 'standby' = 'main') {
  const claims: LeaseClaims = {
    [item]: true,
    jti,
    lic: `L-${jti}`,
    iat: issuedAt / 1000,
    exp: issuedAt / 1000 + 8 * 3600,
  };
  return toLease(item, fakeToken(claims), claims, servedBy);
}

function setup(store: LeaseStore = createMemoryLeaseStore(), start = T0) {
  let time = start;
  const warn = vi.fn();
  const saved = createSavedLeases({
    store,
    now: () => time,
    clockToleranceMs: TOLERANCE,
    logger: { warn },
  });
  return { saved, store, warn, setTime: (at: number) => (time = at) };
}

describe('createSavedLeases', () => {
  it('saves leases, replaces a renewed one, forgets released ones, and a new instance loads them', async () => {
    const { saved, store } = setup();
    await saved.remember([lease('A', 'J1'), lease('B', 'J2')]);
    await saved.remember([lease('A', 'J3', T0 + HOUR)], ['J1']);
    await saved.forget(['J2']);
    await saved.rememberJwks('standby', { keys: [{ kid: 'k1' }] });

    const again = setup(store, T0 + HOUR).saved;
    await again.ready();
    expect(again.leases().map((l) => l.item)).toEqual(['A']);
    expect(again.jwks('standby')).toEqual({ keys: [{ kid: 'k1' }] });
    expect(again.jwks('main')).toBeUndefined();
  });

  it('drops expired leases with the next change', async () => {
    const { saved, setTime } = setup();
    await saved.remember([lease('A', 'J1')]);
    setTime(T0 + 9 * HOUR);
    await saved.remember([lease('B', 'J2', T0 + 9 * HOUR)]);
    expect(saved.leases().map((l) => l.item)).toEqual(['B']);
  });

  it('refuses with CLOCK_ROLLBACK once the clock is more than the tolerance behind the trusted time', async () => {
    const { saved, setTime, store } = setup();
    await saved.remember([lease('A', 'J1', T0 + HOUR)]);
    setTime(T0 + HOUR - TOLERANCE);
    expect(() => saved.assertClock()).not.toThrow();
    setTime(T0 + HOUR - TOLERANCE - 1);
    expect(() => saved.assertClock()).toThrow(expect.objectContaining({ code: 'CLOCK_ROLLBACK' }));

    // The trusted time survives a restart.
    const restarted = setup(store, T0);
    await restarted.saved.ready();
    expect(() => restarted.saved.assertClock()).toThrow(
      expect.objectContaining({ code: 'CLOCK_ROLLBACK' }),
    );
  });

  it('only moves the trusted time forward', async () => {
    const { saved, setTime } = setup();
    await saved.trust(T0 + 2 * HOUR);
    await saved.trust(T0 + HOUR);
    setTime(T0 + 2 * HOUR - TOLERANCE - 1);
    expect(() => saved.assertClock()).toThrow(expect.objectContaining({ code: 'CLOCK_ROLLBACK' }));
  });

  it('loads a damaged store as empty and says so', async () => {
    for (const junk of [{ version: 2 }, 'text', { version: 1, leases: 'x', trustedTime: 0 }]) {
      const store: LeaseStore = {
        load: async () => junk as unknown as SavedLicensingState,
        save: async () => {},
        clear: async () => {},
      };
      const { saved, warn } = setup(store);
      await saved.ready();
      expect(saved.leases()).toEqual([]);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('ignored'));
    }
  });

  it('keeps only well-formed entries of a stored state', async () => {
    const good = lease('A', 'J1');
    const store = createMemoryLeaseStore();
    await store.save({
      version: 1,
      trustedTime: 0,
      jwks: { main: { keys: [] }, standby: 'junk' as never },
      leases: [
        { item: 'A', token: good.token, servedBy: 'main' },
        { item: 'B', token: 42 as never, servedBy: 'main' },
        { item: 'C', token: good.token, servedBy: 'elsewhere' as never },
      ],
    });
    const { saved } = setup(store);
    await saved.ready();
    expect(saved.leases().map((l) => l.item)).toEqual(['A']);
    expect(saved.jwks('main')).toEqual({ keys: [] });
    expect(saved.jwks('standby')).toBeUndefined();
  });

  it('never fails a call because the store does', async () => {
    const store: LeaseStore = {
      load: async () => {
        throw new Error('disk gone');
      },
      save: async () => {
        throw new Error('disk full');
      },
      clear: async () => {},
    };
    const { saved, warn } = setup(store);
    await expect(saved.remember([lease('A', 'J1')])).resolves.toBeUndefined();
    expect(saved.leases()).toHaveLength(1);
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'the lease store could not load',
      'the lease store could not save',
    ]);
  });
});
