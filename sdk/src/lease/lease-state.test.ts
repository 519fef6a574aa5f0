// The lease store's one owner (DECISIONS.md "Lease trust (third wave)", "Damaged or edited
// stores" and "Key sets"): what it reads, what it writes, and that an unreadable store is never
// overwritten, an edited one is replaced, a renewed lease replaces its saved one, and a store
// without a logger never fails a call.

import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPki, type TestPki } from '../../test/helpers/test-pki.js';
import { x509 } from '../../test/helpers/x509.js';
import { LeaseStoreInvalidError, LicensingError } from '../errors.js';
import { parseCertificate } from '../internal/certificate.js';
import type {
  Lease,
  LeaseStore,
  LicensingLogger,
  LicensingService,
  SavedLicensingState,
} from '../types.js';
import { createLeaseState, type LeaseStateDeps } from './lease-state.js';
import { createMemoryLeaseStore } from './memory-lease-store.js';
import { createServiceKeys, type ServiceKeys } from './service-keys.js';
import { createTrustedClock, type TrustedClock } from './trusted-clock.js';

const T0 = Date.UTC(2030, 0, 1);
const S0 = T0 / 1000;
const HOUR = 3_600_000;
const TOLERANCE = 60_000;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A token of the right form; LeaseState never verifies, its callers do. */
const tokenWith = (claims: Record<string, unknown>) =>
  `${b64({ alg: 'RS256', kid: 'k' })}.${b64(claims)}.${b64('sig')}`;

function leaseOf(item: string, jti: string, iat = S0, servedBy: LicensingService = 'main'): Lease {
  const claims = { [item]: true, jti, lic: 'L1', iat, exp: iat + 8 * 3600 };
  return {
    item,
    leaseId: jti,
    licenseId: 'L1',
    token: tokenWith(claims),
    claims,
    expiresAt: (iat + 8 * 3600) * 1000,
    refreshAt: (iat + 6 * 3600) * 1000,
    servedBy,
  };
}
const saved = (lease: Lease) => ({
  item: lease.item,
  token: lease.token,
  servedBy: lease.servedBy,
});

/** A key source that records what it was given and lists `jwks` as trusted. */
function fakeKeys(service: LicensingService, jwks: Array<Record<string, unknown>> = []) {
  const restored: Array<readonly Record<string, unknown>[]> = [];
  const keys = {
    service,
    restored,
    restore: (list: readonly Record<string, unknown>[]) => {
      restored.push(list);
    },
    trusted: () => jwks,
  } as unknown as ServiceKeys & { restored: typeof restored };
  return keys;
}

function documentWith(overrides: Record<string, unknown> = {}) {
  return {
    version: 2,
    leases: [],
    keys: { main: [], standby: [] },
    timeMark: 0,
    offsetMs: 0,
    ...overrides,
  };
}

interface Setup {
  store?: LeaseStore;
  clock?: TrustedClock;
  logger?: LicensingLogger | undefined;
  keys?: LeaseStateDeps['keys'];
  local?: { now: number };
}

function setup(options: Setup = {}) {
  const local = options.local ?? { now: T0 };
  const store = options.store ?? createMemoryLeaseStore();
  const clock =
    options.clock ??
    createTrustedClock({ now: () => local.now, monotonic: () => 0, toleranceMs: TOLERANCE });
  const keys = options.keys ?? { main: fakeKeys('main'), standby: fakeKeys('standby') };
  const logger = 'logger' in options ? options.logger : { warn: vi.fn() };
  const state = createLeaseState({ store, clock, keys, toleranceMs: TOLERANCE, logger });
  return { state, store, clock, keys, logger, local };
}

async function documentIn(store: LeaseStore) {
  const text = await store.load();
  if (text === undefined) throw new Error('nothing saved');
  return JSON.parse(text) as SavedLicensingState;
}

/** A store whose load and save are scripted. */
function scriptedStore(
  load: () => Promise<string | undefined>,
  save = vi.fn(async (_text: string) => {}),
) {
  return { load: vi.fn(load), save, clear: vi.fn(async () => {}) };
}

describe('createLeaseState', () => {
  describe('load', () => {
    it('reads an absent store as empty and trusted, and reads it once', async () => {
      const store = scriptedStore(async () => undefined);
      const { state } = setup({ store });
      expect(await state.load()).toEqual({ trusted: true });
      expect(await state.load()).toEqual({ trusted: true });
      expect(store.load).toHaveBeenCalledTimes(1);
      expect(state.leases()).toEqual([]);
    });

    it('shares one read among concurrent loads', async () => {
      const store = scriptedStore(async () => JSON.stringify(documentWith()));
      const { state } = setup({ store });
      await Promise.all([state.load(), state.load(), state.load()]);
      expect(store.load).toHaveBeenCalledTimes(1);
    });

    it('takes the leases, hands each service its kept keys, and restores the clock', async () => {
      const a = leaseOf('ItemA', 'J1');
      const mainJwk = { kid: 'm' };
      const standbyJwk = { kid: 's' };
      const store = createMemoryLeaseStore();
      await store.save(
        JSON.stringify(
          documentWith({
            leases: [saved(a)],
            keys: { main: [mainJwk], standby: [standbyJwk] },
            timeMark: T0 + HOUR,
            offsetMs: -2_500,
          }),
        ),
      );
      const { state, keys, clock } = setup({ store });
      expect(await state.load()).toEqual({ trusted: true });
      expect(state.leases()).toEqual([saved(a)]);
      expect((keys.main as ReturnType<typeof fakeKeys>).restored).toEqual([[mainJwk]]);
      expect((keys.standby as ReturnType<typeof fakeKeys>).restored).toEqual([[standbyJwk]]);
      expect(clock.mark).toBe(T0 + HOUR);
      expect(clock.offsetMs).toBe(-2_500);
    });

    it("resumes the clock at the store's usedUntil, or at its mark for a document without one", async () => {
      const ahead = createMemoryLeaseStore();
      await ahead.save(JSON.stringify(documentWith({ timeMark: T0, usedUntil: T0 + HOUR })));
      const restarted = setup({ store: ahead });
      await restarted.state.load();
      // The local clock reads T0 (set back, or a quick restart): trusted time goes on from usedUntil.
      expect(restarted.clock.now()).toBe(T0 + HOUR);
      expect(restarted.clock.mark).toBe(T0);
      const older = createMemoryLeaseStore();
      await older.save(JSON.stringify(documentWith({ timeMark: T0 - HOUR })));
      const fromMark = setup({ store: older });
      await fromMark.state.load();
      expect(fromMark.clock.now()).toBe(T0);
    });

    it('never lowers a mark the clock already holds when restoring it', async () => {
      const store = createMemoryLeaseStore();
      await store.save(JSON.stringify(documentWith({ timeMark: T0, offsetMs: 100 })));
      const clock = createTrustedClock({ now: () => T0, toleranceMs: TOLERANCE });
      clock.raise(T0 + HOUR);
      const { state } = setup({ store, clock });
      await state.load();
      expect(clock.mark).toBe(T0 + HOUR);
      expect(clock.offsetMs).toBe(100);
    });

    it('read late, after an online answer anchored the clock: keeps the offset learnt, raises the mark', async () => {
      let fail = true;
      const store = scriptedStore(async () => {
        if (fail) throw new Error('EBUSY');
        return JSON.stringify(documentWith({ timeMark: T0 + 2 * HOUR, offsetMs: 99_000 }));
      });
      const { state, clock } = setup({ store });
      expect((await state.load()).trusted).toBe(false);
      clock.observeSigned(T0 + 5_000);
      fail = false;
      expect(await state.load()).toEqual({ trusted: true });
      expect(clock.offsetMs).toBe(5_000);
      expect(clock.mark).toBe(T0 + 2 * HOUR);
      // A lower kept mark does not lower the services' time.
      const low = scriptedStore(async () => JSON.stringify(documentWith({ timeMark: T0 - HOUR })));
      const anchored = createTrustedClock({ now: () => T0, toleranceMs: TOLERANCE });
      anchored.observeSigned(T0);
      await setup({ store: low, clock: anchored }).state.load();
      expect(anchored.mark).toBe(T0);
    });

    it('calls a store whose text cannot be trusted invalid, with the reason, and reads it only once', async () => {
      const store = scriptedStore(async () => JSON.stringify(documentWith({ timeMark: -5 })));
      const { state } = setup({ store });
      const status = await state.load();
      expect(status.trusted).toBe(false);
      if (status.trusted) return;
      expect(status.error).toBeInstanceOf(LeaseStoreInvalidError);
      expect(status.error.reason).toBe('edited');
      await state.load();
      expect(store.load).toHaveBeenCalledTimes(1);
    });

    it('passes on a sealed store refusal from the store itself', async () => {
      const sealed = new LeaseStoreInvalidError('sealed', 'the seal does not match');
      const store = scriptedStore(async () => {
        throw sealed;
      });
      const { state } = setup({ store });
      expect(await state.load()).toEqual({ trusted: false, error: sealed });
      await state.load();
      expect(store.load).toHaveBeenCalledTimes(1);
    });

    it('calls a store that fails to read unreadable, and reads it again at the next load', async () => {
      const failure = new Error('EBUSY: resource busy');
      const other = new LicensingError('INVALID_ARGUMENT', 'not a store error');
      let calls = 0;
      const store = scriptedStore(async () => {
        calls += 1;
        if (calls === 1) throw failure;
        if (calls === 2) throw other;
        return undefined;
      });
      const { state } = setup({ store });
      const first = await state.load();
      expect(first.trusted).toBe(false);
      if (first.trusted) return;
      expect(first.error.reason).toBe('unreadable');
      expect(first.error.cause).toBe(failure);
      expect(first.error.message).toMatch(
        /could not be read \(EBUSY: resource busy\); it is read again/,
      );
      const second = await state.load();
      if (second.trusted) throw new Error('expected unreadable');
      expect(second.error.reason).toBe('unreadable');
      expect(second.error.cause).toBe(other);
      expect(await state.load()).toEqual({ trusted: true });
      expect(store.load).toHaveBeenCalledTimes(3);
    });

    it('names a thrown non-error in the unreadable message', async () => {
      const store = scriptedStore(async () => {
        throw 'disk gone';
      });
      const status = await setup({ store }).state.load();
      if (status.trusted) throw new Error('expected unreadable');
      expect(status.error.message).toMatch(/\(disk gone\)/);
    });

    it('calls the store unreadable when adopting it throws something unexpected, and tries again', async () => {
      const store = createMemoryLeaseStore();
      await store.save(JSON.stringify(documentWith()));
      const main = fakeKeys('main');
      let fail = true;
      main.restore = () => {
        if (fail) throw new TypeError('key check exploded');
      };
      const { state } = setup({ store, keys: { main, standby: fakeKeys('standby') } });
      const status = await state.load();
      if (status.trusted) throw new Error('expected unreadable');
      expect(status.error.reason).toBe('unreadable');
      expect(status.error.message).toBe(
        'The lease store could not be read (key check exploded); it is read again before anything is written to it. Check the lease store (leaseStore) and what it holds.',
      );
      expect(status.error.cause).toBeInstanceOf(TypeError);
      fail = false;
      expect(await state.load()).toEqual({ trusted: true });
    });
  });

  describe('remember, forget, discard and persist', () => {
    it('saves leases just verified with the keys and the clock, stripped to what a store keeps', async () => {
      const keys = {
        main: fakeKeys('main', [{ kid: 'm' }]),
        standby: fakeKeys('standby', [{ kid: 's' }]),
      };
      const { state, store, clock } = setup({ keys });
      clock.observeSigned(T0 + 3_000);
      const a = leaseOf('ItemA', 'J1');
      await state.remember([a]);
      expect(state.leases()).toEqual([saved(a)]);
      expect(await documentIn(store)).toEqual({
        version: 2,
        leases: [saved(a)],
        keys: { main: [{ kid: 'm' }], standby: [{ kid: 's' }] },
        timeMark: T0 + 3_000,
        offsetMs: 3_000,
        // Where the app was (no restart charge configured here): a restart resumes there.
        usedUntil: T0 + 3_000,
      });
    });

    it('replaces a renewed lease: the new one by its id, the old one by the id it replaces', async () => {
      const { state, store } = setup();
      const a = leaseOf('ItemA', 'J1');
      const b = leaseOf('ItemB', 'J2');
      await state.remember([a, b]);
      const renewed = leaseOf('ItemA', 'J3', S0 + 60);
      await state.remember([renewed], ['J1']);
      expect(state.leases()).toEqual([saved(b), saved(renewed)]);
      expect((await documentIn(store)).leases).toEqual([saved(b), saved(renewed)]);
      // The same lease id again (a renewal that kept its id) replaces, never duplicates.
      const again = leaseOf('ItemB', 'J2', S0 + 120);
      await state.remember([again]);
      expect(state.leases()).toEqual([saved(renewed), saved(again)]);
    });

    it('keeps a saved entry whose token has no lease id when others are replaced', async () => {
      const store = createMemoryLeaseStore();
      const odd = {
        item: 'ItemZ',
        token: tokenWith({ ItemZ: true, iat: S0, exp: S0 + 3600 }),
        servedBy: 'main',
      };
      await store.save(JSON.stringify(documentWith({ leases: [odd], timeMark: T0 })));
      const { state } = setup({ store });
      await state.remember([leaseOf('ItemA', 'J1')], ['J0']);
      expect(state.leases()).toContainEqual(odd);
      await state.forget(['J1']);
      expect(state.leases()).toEqual([odd]);
    });

    it('forgets released leases by lease id', async () => {
      const { state, store } = setup();
      const a = leaseOf('ItemA', 'J1');
      const b = leaseOf('ItemB', 'J2');
      await state.remember([a, b]);
      await state.forget(['J1', 'unknown']);
      expect(state.leases()).toEqual([saved(b)]);
      expect((await documentIn(store)).leases).toEqual([saved(b)]);
    });

    it('discards refused entries by token', async () => {
      const { state, store } = setup();
      const a = leaseOf('ItemA', 'J1');
      const b = leaseOf('ItemB', 'J2');
      await state.remember([a, b]);
      await state.discard([b.token]);
      expect(state.leases()).toEqual([saved(a)]);
      expect((await documentIn(store)).leases).toEqual([saved(a)]);
    });

    it('persists the keys and the clock as they are', async () => {
      const { state, store, clock } = setup();
      clock.raise(T0 + 42);
      await state.persist();
      expect(await documentIn(store)).toEqual(
        documentWith({ timeMark: T0 + 42, usedUntil: T0 + 42 }),
      );
    });

    it('merges the leases of a store read late with those of this session, this session winning', async () => {
      const older = leaseOf('ItemA', 'J1', S0 - 60);
      const keptOnly = leaseOf('ItemB', 'J2', S0 - 60);
      let fail = true;
      const store = scriptedStore(async () => {
        if (fail) throw new Error('EBUSY');
        return JSON.stringify(
          documentWith({ leases: [saved(older), saved(keptOnly)], timeMark: T0 }),
        );
      });
      const { state } = setup({ store });
      await state.load();
      // Remembered while the store cannot be read: kept in memory, not written.
      const fresh = leaseOf('ItemA', 'J1', S0);
      await state.remember([fresh]);
      expect(store.save).not.toHaveBeenCalled();
      fail = false;
      await state.persist();
      expect(state.leases()).toEqual([saved(keptOnly), saved(fresh)]);
      expect(store.save).toHaveBeenCalledTimes(1);
      const written = JSON.parse(store.save.mock.calls[0]![0]) as SavedLicensingState;
      expect(written.leases).toEqual([saved(keptOnly), saved(fresh)]);
    });

    it('keeps entries whose token it cannot read until the next write, which drops them', async () => {
      const store = createMemoryLeaseStore();
      const unreadable = { item: 'ItemU', token: 'not a token', servedBy: 'main' };
      await store.save(JSON.stringify(documentWith({ leases: [unreadable], timeMark: T0 })));
      const { state, clock } = setup({ store });
      await state.load();
      expect(state.leases()).toEqual([unreadable]);
      const a = leaseOf('ItemA', 'J1');
      await state.remember([a], ['J9']);
      expect(clock.mark).toBe(T0);
      expect(state.leases()).toEqual([saved(a)]);
      expect(await documentIn(store)).toMatchObject({ leases: [saved(a)], timeMark: T0 });
      await state.forget(['J1']);
      expect(state.leases()).toEqual([]);
    });

    it('takes an iat or exp written as text for no time: it neither raises the mark nor keeps the entry', async () => {
      const store = createMemoryLeaseStore();
      const later = String(S0 + 9e5);
      const textTimes = {
        item: 'ItemT',
        token: tokenWith({ ItemT: true, jti: 'J7', iat: later, exp: later }),
        servedBy: 'standby',
      };
      await store.save(JSON.stringify(documentWith({ leases: [textTimes], timeMark: T0 })));
      const { state, clock } = setup({ store });
      await state.persist();
      expect(clock.mark).toBe(T0);
      expect(state.leases()).toEqual([]);
      expect(await documentIn(store)).toMatchObject({ leases: [], timeMark: T0 });
    });

    it('raises the mark to the latest iat it holds and drops leases expired on it', async () => {
      const store = createMemoryLeaseStore();
      // Issued 10 h before T0 (8 h lease): expired 2 h before T0.
      const stale = leaseOf('ItemA', 'J1', S0 - 10 * 3600);
      // Expired exactly the tolerance before the mark: still kept.
      const edge = { ...leaseOf('ItemC', 'J3', S0 - 10 * 3600) };
      const edgeToken = tokenWith({
        ItemC: true,
        jti: 'J3',
        iat: S0 - 3600,
        exp: (T0 + HOUR - TOLERANCE) / 1000,
      });
      const justGone = tokenWith({
        ItemD: true,
        jti: 'J4',
        iat: S0 - 3600,
        exp: (T0 + HOUR - TOLERANCE) / 1000 - 1,
      });
      const noExp = tokenWith({ ItemE: true, jti: 'J5', iat: S0 - 3600 });
      const { state, clock } = setup({ store });
      const fresh = leaseOf('ItemB', 'J2', S0 + 3600);
      await state.remember([
        stale,
        fresh,
        { ...edge, token: edgeToken },
        { ...edge, item: 'ItemD', leaseId: 'J4', token: justGone },
        { ...edge, item: 'ItemE', leaseId: 'J5', token: noExp },
      ]);
      expect(clock.mark).toBe(T0 + HOUR);
      const document = await documentIn(store);
      expect(document.timeMark).toBe(T0 + HOUR);
      expect(document.leases.map((lease) => lease.item)).toEqual(['ItemB', 'ItemC']);
      expect(state.leases().map((lease) => lease.item)).toEqual(['ItemB', 'ItemC']);
    });

    it('after an online answer, drops entries issued beyond the services time: planted, not accepted', async () => {
      const entry = (item: string, claims: Record<string, unknown>) => ({
        ...leaseOf(item, `J-${item}`),
        token: tokenWith({ [item]: true, jti: `J-${item}`, exp: S0 + 8 * 3600, ...claims }),
      });
      const entries = [
        entry('Planted', { iat: S0 + 10 * 3600, exp: S0 + 18 * 3600 }),
        entry('JustBeyond', { iat: (T0 + TOLERANCE + 1) / 1000 }),
        entry('AtTheEdge', { iat: (T0 + TOLERANCE) / 1000 }),
        entry('TextIat', { iat: String(S0 + 10 * 3600) }),
        { ...leaseOf('Unreadable', 'J-Unreadable'), token: 'not a token' },
      ];
      const offline = setup();
      await offline.state.remember(entries);
      // Not anchored: nothing says the services' time, so the planted entry stays, lifts the
      // mark and expires the others on it. An online answer is what unmasks it.
      expect(offline.state.leases().map((lease) => lease.item)).toEqual(['Planted']);
      expect(offline.clock.mark).toBe(T0 + 10 * HOUR);

      const { state, clock, store } = setup();
      clock.observeSigned(T0);
      await state.remember(entries);
      expect(state.leases().map((lease) => lease.item)).toEqual(['AtTheEdge', 'TextIat']);
      expect(clock.mark).toBe(T0 + TOLERANCE);
      expect((await documentIn(store)).leases.map((lease) => lease.item)).toEqual([
        'AtTheEdge',
        'TextIat',
      ]);
    });

    it('keeps a mark above every iat it holds', async () => {
      const { state, clock, store } = setup();
      clock.raise(T0 + 5 * HOUR);
      await state.remember([leaseOf('ItemA', 'J1', S0 + 3600)]);
      expect((await documentIn(store)).timeMark).toBe(T0 + 5 * HOUR);
    });

    it('writes one change at a time, in order', async () => {
      const texts: string[] = [];
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const store = scriptedStore(
        async () => undefined,
        vi.fn(async (text: string) => {
          if (texts.length === 0) await gate;
          texts.push(text);
        }),
      );
      const { state } = setup({ store });
      const first = state.remember([leaseOf('ItemA', 'J1')]);
      const second = state.remember([leaseOf('ItemB', 'J2')]);
      await Promise.resolve();
      release();
      await Promise.all([first, second]);
      expect(texts).toHaveLength(2);
      expect(JSON.parse(texts[1]!).leases.map((l: { item: string }) => l.item)).toEqual([
        'ItemA',
        'ItemB',
      ]);
    });
  });

  describe('a store that cannot be trusted', () => {
    it('never overwrites a store it could not read: warns and reads it again before the next write', async () => {
      let fail = true;
      const document = JSON.stringify(
        documentWith({ leases: [saved(leaseOf('ItemK', 'J9'))], timeMark: T0 }),
      );
      const store = scriptedStore(async () => {
        if (fail) throw new Error('EBUSY');
        return document;
      });
      const { state, logger } = setup({ store });
      await state.remember([leaseOf('ItemA', 'J1')]);
      expect(store.save).not.toHaveBeenCalled();
      expect(logger!.warn).toHaveBeenCalledWith(
        'the lease store is still unreadable: not overwriting it',
        expect.objectContaining({ reason: 'unreadable' }),
      );
      fail = false;
      await state.remember([leaseOf('ItemB', 'J2')]);
      expect(store.save).toHaveBeenCalledTimes(1);
      const written = JSON.parse(store.save.mock.calls[0]![0] as string);
      expect(written.leases.map((l: { item: string }) => l.item)).toEqual([
        'ItemK',
        'ItemA',
        'ItemB',
      ]);
    });

    it('replaces an edited store at the next write, and trusts it from then on', async () => {
      const store = createMemoryLeaseStore();
      await store.save(JSON.stringify(documentWith({ timeMark: 'edited' })));
      const { state } = setup({ store });
      expect((await state.load()).trusted).toBe(false);
      await state.remember([leaseOf('ItemA', 'J1')]);
      expect(await state.load()).toEqual({ trusted: true });
      expect((await documentIn(store)).leases).toHaveLength(1);
    });

    it('logs a failed save and carries on', async () => {
      const failure = new Error('ENOSPC');
      const store = scriptedStore(
        async () => undefined,
        vi.fn(async () => {
          throw failure;
        }),
      );
      const { state, logger } = setup({ store });
      await expect(state.remember([leaseOf('ItemA', 'J1')])).resolves.toBeUndefined();
      expect(logger!.warn).toHaveBeenCalledWith('the lease store could not save', failure);
      expect(state.leases()).toHaveLength(1);
      // The next change writes again.
      await state.persist();
      expect(store.save).toHaveBeenCalledTimes(2);
    });

    it('reports a failed save in saveError() until a save succeeds', async () => {
      let fail = true;
      const failure = new Error('EACCES: permission denied');
      const store = scriptedStore(
        async () => undefined,
        vi.fn(async () => {
          if (fail) throw failure;
        }),
      );
      const { state } = setup({ store });
      expect(state.saveError()).toBeUndefined();
      await state.remember([leaseOf('ItemA', 'J1')]);
      const error = state.saveError();
      expect(error).toBeInstanceOf(LeaseStoreInvalidError);
      expect(error).toMatchObject({ code: 'LEASE_STORE_INVALID', reason: 'unwritable' });
      expect(error!.cause).toBe(failure);
      expect(error!.message).toBe(
        'The lease store could not be written (EACCES: permission denied); the app keeps the leases it holds and the next change tries again. Check that the app may write where leaseStore keeps its state.',
      );
      // Another failure: a new error for it.
      await state.persist();
      expect(state.saveError()).not.toBe(error);
      expect(state.saveError()).toMatchObject({ reason: 'unwritable' });
      fail = false;
      await state.persist();
      expect(state.saveError()).toBeUndefined();
    });

    it('names a thrown non-error in the unwritable message, and reports none for a store it did not write', async () => {
      const store = scriptedStore(
        async () => undefined,
        vi.fn(async () => {
          throw 'disk full';
        }),
      );
      const { state } = setup({ store });
      await state.persist();
      expect(state.saveError()!.message).toMatch(
        /^The lease store could not be written \(disk full\);/,
      );
      // A store still unreadable is not written: no save failed.
      const unreadable = scriptedStore(async () => {
        throw new Error('EBUSY');
      });
      const skipped = setup({ store: unreadable }).state;
      await skipped.persist();
      expect(unreadable.save).not.toHaveBeenCalled();
      expect(skipped.saveError()).toBeUndefined();
    });

    it('works without a logger: an unreadable store and a failed save fail no call', async () => {
      const store = scriptedStore(
        async () => {
          throw new Error('EBUSY');
        },
        vi.fn(async () => {
          throw new Error('ENOSPC');
        }),
      );
      const { state } = setup({ store, logger: undefined });
      await expect(state.remember([leaseOf('ItemA', 'J1')])).resolves.toBeUndefined();
      const writable = scriptedStore(
        async () => undefined,
        vi.fn(async () => {
          throw new Error('ENOSPC');
        }),
      );
      const second = setup({ store: writable, logger: undefined }).state;
      await expect(second.remember([leaseOf('ItemA', 'J1')])).resolves.toBeUndefined();
      expect(writable.save).toHaveBeenCalledTimes(1);
    });
  });

  describe('savedUsedUntil: the time a restart resumes at, as the store holds it', () => {
    it("is the document's usedUntil, else its mark (a document from before usedUntil)", async () => {
      const read = setup({
        store: scriptedStore(async () =>
          JSON.stringify(documentWith({ timeMark: T0, usedUntil: T0 + HOUR })),
        ),
      }).state;
      await read.load();
      expect(read.savedUsedUntil()).toBe(T0 + HOUR);
      const older = setup({
        store: scriptedStore(async () => JSON.stringify(documentWith({ timeMark: T0 }))),
      }).state;
      await older.load();
      expect(older.savedUsedUntil()).toBe(T0);
    });

    it('is the usedUntil written once the save succeeded, and stays when a save fails', async () => {
      let fail = false;
      const store = scriptedStore(
        async () => undefined,
        vi.fn(async () => {
          if (fail) throw new Error('ENOSPC');
        }),
      );
      const { state, clock } = setup({ store });
      clock.raise(T0 + 10_000);
      await state.persist();
      const written = clock.snapshot().usedUntil;
      expect(state.savedUsedUntil()).toBe(written);
      fail = true;
      clock.raise(T0 + HOUR);
      await state.persist();
      expect(state.savedUsedUntil()).toBe(written);
    });
  });

  describe('savedMark: the time mark the store holds', () => {
    it('is 0 before anything was read or written, and for a store that holds nothing', async () => {
      const { state } = setup({ store: scriptedStore(async () => undefined) });
      expect(state.savedMark()).toBe(0);
      await state.load();
      expect(state.savedMark()).toBe(0);
    });

    it('is the mark of the document read', async () => {
      const store = scriptedStore(async () =>
        JSON.stringify(documentWith({ timeMark: T0 + HOUR })),
      );
      const { state, clock } = setup({ store });
      await state.load();
      expect(state.savedMark()).toBe(T0 + HOUR);
      // The clock moving on does not move what the store holds.
      clock.raise(T0 + 2 * HOUR);
      expect(state.savedMark()).toBe(T0 + HOUR);
    });

    it('is the mark written, raised to every iat the document holds, once the save succeeded', async () => {
      const { state, clock, store } = setup();
      clock.raise(T0 + 10_000);
      await state.persist();
      expect(state.savedMark()).toBe(T0 + 10_000);
      expect((await documentIn(store)).timeMark).toBe(T0 + 10_000);
      await state.remember([leaseOf('ItemA', 'J1', S0 + 60)]);
      expect(state.savedMark()).toBe(T0 + 60_000);
      expect((await documentIn(store)).timeMark).toBe(T0 + 60_000);
    });

    it('stays where it was when a save fails, and follows the next save that succeeds', async () => {
      let fail = false;
      const store = scriptedStore(
        async () => undefined,
        vi.fn(async () => {
          if (fail) throw new Error('ENOSPC');
        }),
      );
      const { state, clock } = setup({ store });
      clock.raise(T0);
      await state.persist();
      expect(state.savedMark()).toBe(T0);
      fail = true;
      clock.raise(T0 + HOUR);
      await state.persist();
      expect(state.savedMark()).toBe(T0);
      fail = false;
      await state.persist();
      expect(state.savedMark()).toBe(T0 + HOUR);
    });

    it('is the mark the text held, not one the clock reached while the save ran', async () => {
      let finishSave = () => {};
      const store = scriptedStore(
        async () => undefined,
        vi.fn(
          () =>
            new Promise<void>((resolve) => {
              finishSave = resolve;
            }),
        ),
      );
      const { state, clock } = setup({ store });
      clock.raise(T0);
      const saving = state.persist();
      await vi.waitFor(() => expect(store.save).toHaveBeenCalledTimes(1));
      clock.raise(T0 + HOUR);
      finishSave();
      await saving;
      expect(state.savedMark()).toBe(T0);
    });
  });

  describe('with real key sources', () => {
    let pki: TestPki;
    let keys: Record<LicensingService, ServiceKeys>;

    beforeAll(async () => {
      pki = await createTestPki({ now: () => T0 });
    });

    function realKeys() {
      const cert = parseCertificate(new x509.X509Certificate(pki.rootPem).rawData);
      const anchors = [{ cert, der: cert.der }];
      keys = {
        main: createServiceKeys({ service: 'main', anchors, cooldownMs: 30_000, now: () => T0 }),
        standby: createServiceKeys({
          service: 'standby',
          anchors,
          cooldownMs: 30_000,
          now: () => T0,
        }),
      };
      return keys;
    }

    it('keeps the saved keys whose checks are still running when it writes', async () => {
      const store = createMemoryLeaseStore();
      await store.save(
        JSON.stringify(
          documentWith({ keys: { main: [pki.signingKey.jwk], standby: [pki.signingKey.jwk] } }),
        ),
      );
      const { state } = setup({ store, keys: realKeys() });
      await state.load();
      await state.persist();
      expect((await documentIn(store)).keys).toEqual({
        main: [pki.signingKey.jwk],
        standby: [pki.signingKey.jwk],
      });
      expect(await keys.main.keyFor(pki.kid, { fetch: false })).toBeDefined();
      expect(await keys.standby.keyFor(pki.kid, { fetch: false })).toBeDefined();
      await state.persist();
      expect((await documentIn(store)).keys.main).toEqual([pki.signingKey.jwk]);
    });
  });
});
