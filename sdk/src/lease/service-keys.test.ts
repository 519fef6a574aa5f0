// One service's key source (DECISIONS.md "Lease trust (third wave)", "Key sets", and "Trust while
// the app runs (fourth wave)": one key source per service, bounded work): a JWK is trusted only
// once its chain verified, and only the JWK of the kid a token needs is checked; a bad answer never
// takes a trusted key away; kept keys are checked again before use; one fetch at a time, and one
// unknown-kid fetch per cooldown whatever the kid; the attempt's budget covers read and check.

import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createTestPki,
  createTestRoot,
  createTestSigningKey,
  type TestPki,
  type TestSigningKey,
} from '../../test/helpers/test-pki.js';
import { x509 } from '../../test/helpers/x509.js';
import { TokenInvalidError } from '../errors.js';
import { parseCertificate } from '../internal/certificate.js';
import type { TrustAnchor } from './certificate-chain.js';
import {
  createServiceKeys,
  MAX_CANDIDATES_PER_KID,
  type ServiceKeysOptions,
} from './service-keys.js';
import { verifySigningKey } from './signing-key-check.js';

vi.mock('./signing-key-check.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./signing-key-check.js')>();
  return { ...original, verifySigningKey: vi.fn(original.verifySigningKey) };
});

type Jwk = Record<string, unknown>;

const T0 = Date.UTC(2030, 0, 1);
const COOLDOWN = 30_000;
const pkiNow = () => T0;

let pki: TestPki;
let anchors: TrustAnchor[];
/** Another key under the root (kid `second`). */
let second: TestSigningKey;
/** The default kid's key pair under another certificate: the same key, a re-issued chain. */
let reissued: TestSigningKey;
/** The default kid's key pair under another root: the same key, a chain the app does not trust. */
let foreign: TestSigningKey;
/** Another key pair under the root, published under the default kid. */
let renamed: TestSigningKey;

beforeAll(async () => {
  pki = await createTestPki({ now: pkiNow });
  const keys = pki.signingKey.keys;
  second = await pki.createSigningKey({ kid: 'second', keys });
  reissued = await pki.createSigningKey({ kid: pki.kid, keys, name: 'Reissued' });
  foreign = await createTestSigningKey(await createTestRoot({ now: pkiNow }), {
    now: pkiNow,
    kid: pki.kid,
    keys,
  });
  renamed = await pki.createSigningKey({ kid: pki.kid, name: 'Renamed' });
});

/** The local clock of the cooldown, moved by the tests. */
let clock: { now: number };

// Parsed for each test (not once for all), so each test's coverage includes what it runs.
beforeEach(() => {
  const cert = parseCertificate(new x509.X509Certificate(pki.rootPem).rawData);
  anchors = [{ cert, der: cert.der }];
  clock = { now: T0 };
  vi.mocked(verifySigningKey).mockClear();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A JWK set loader that serves `set.keys` (changeable) and counts its calls. */
function loaderOf(...keys: Jwk[]) {
  const served = { set: { keys } as unknown, count: 0, signals: [] as AbortSignal[] };
  const load = async (signal: AbortSignal) => {
    served.count += 1;
    served.signals.push(signal);
    return served.set;
  };
  return { served, load };
}

function source(overrides: Partial<ServiceKeysOptions> = {}) {
  return createServiceKeys({
    service: 'standby',
    anchors,
    cooldownMs: COOLDOWN,
    now: () => clock.now,
    ...overrides,
  });
}

/** A promise and its resolve/reject, to hold a load or a check until a test lets it go. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Holds the next key check until `release()`; then it runs the real check. */
async function holdNextCheck() {
  const real = (
    await vi.importActual<typeof import('./signing-key-check.js')>('./signing-key-check.js')
  ).verifySigningKey;
  const gate = deferred<void>();
  vi.mocked(verifySigningKey).mockImplementationOnce(async (...args) => {
    await gate.promise;
    return real(...args);
  });
  return () => gate.resolve();
}

const checks = () => vi.mocked(verifySigningKey).mock.calls.length;
/** The JWKs checked so far, in order. */
const checked = () => vi.mocked(verifySigningKey).mock.calls.map(([jwk]) => jwk);

const noKid = (kid: string, service = 'standby', url = 'standbyUrl') =>
  `the ${service} service publishes no key with kid ${kid}. Check that ${url} is the service that issued the token, or check the item out again.`;

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('createServiceKeys', () => {
  it('starts empty: no key, nothing to keep, and without a loader nothing to fetch', async () => {
    const keys = source();
    expect(keys.service).toBe('standby');
    expect(keys.find(pki.kid)).toBeUndefined();
    expect(keys.trusted()).toEqual([]);
    const refusal = await rejectionOf(keys.keyFor('nope'));
    expect(refusal).toBeInstanceOf(TokenInvalidError);
    expect(refusal).toMatchObject({ reason: 'kid', message: noKid('nope') });
    await expect(keys.refresh()).rejects.toThrow(
      new TypeError('this key source has no JWK set to fetch'),
    );
    expect(checks()).toBe(0);
  });

  it('names mainUrl in the refusal of a kid main does not publish', async () => {
    const { load, served } = loaderOf(pki.signingKey.jwk);
    const keys = source({ service: 'main', load });
    expect(keys.service).toBe('main');
    await expect(keys.keyFor('nope')).rejects.toMatchObject({
      reason: 'kid',
      message: noKid('nope', 'main', 'mainUrl'),
    });
    expect(served.count).toBe(1);
  });

  describe('keyFor with a loader', () => {
    it('fetches the set for a kid it lacks and checks that kid only', async () => {
      const many = Array.from({ length: 50 }, (_, i) => ({ ...second.jwk, kid: `k${i}` }));
      const { load, served } = loaderOf(...many, pki.signingKey.jwk, second.jwk);
      const keys = source({ load });
      const key = await keys.keyFor(pki.kid);
      expect(key.validity).toHaveLength(2);
      expect(keys.find(pki.kid)).toBe(key);
      expect(served.count).toBe(1);
      expect(checks()).toBe(1);
      expect(vi.mocked(verifySigningKey)).toHaveBeenLastCalledWith(
        pki.signingKey.jwk,
        pki.kid,
        anchors,
        { service: 'standby' },
      );
      // The others were published, not checked: not trusted, not kept.
      expect(keys.find('second')).toBeUndefined();
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
      // A kid of the last set is checked when asked for, without another fetch.
      const other = await keys.keyFor('second');
      expect(keys.find('second')).toBe(other);
      expect(served.count).toBe(1);
      expect(checks()).toBe(2);
      // A trusted kid is answered from what it holds.
      expect(await keys.keyFor(pki.kid)).toBe(key);
      expect(served.count).toBe(1);
      expect(checks()).toBe(2);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk, second.jwk]);
    });

    it('passes the service and the embed hint to the check, and the refusal says why', async () => {
      const { load } = loaderOf(foreign.jwk);
      const keys = source({ load, embedHint: 'Run embed-root.' });
      const refusal = await rejectionOf(keys.keyFor(pki.kid));
      expect(vi.mocked(verifySigningKey)).toHaveBeenLastCalledWith(foreign.jwk, pki.kid, anchors, {
        service: 'standby',
        embedHint: 'Run embed-root.',
      });
      expect(refusal).toBeInstanceOf(TokenInvalidError);
      expect(refusal).toMatchObject({ reason: 'chain' });
      expect((refusal as Error).message).toMatch(/^the standby service's signing key/);
      expect((refusal as Error).message).toMatch(/Run embed-root\.$/);
    });

    it('refuses a kid the set does not publish, with the kid refusal', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      await expect(keys.keyFor('missing')).rejects.toMatchObject({
        reason: 'kid',
        message: noKid('missing'),
      });
      expect(served.count).toBe(1);
      expect(checks()).toBe(0);
    });

    it('fetches once for concurrent callers, whatever their kids, and again after', async () => {
      const gate = deferred<unknown>();
      let loads = 0;
      const keys = source({
        load: () => {
          loads += 1;
          return gate.promise;
        },
      });
      const first = keys.keyFor(pki.kid);
      const other = keys.keyFor('second');
      const missing = keys.keyFor('missing');
      const refreshed = keys.refresh();
      // Every caller waits on the one fetch in flight.
      await Promise.resolve();
      expect(loads).toBe(1);
      gate.resolve({ keys: [pki.signingKey.jwk, second.jwk] });
      const [a, b, c, set] = await Promise.allSettled([first, other, missing, refreshed]);
      expect(a).toMatchObject({ status: 'fulfilled', value: keys.find(pki.kid) });
      expect(b).toMatchObject({ status: 'fulfilled', value: keys.find('second') });
      expect(c).toMatchObject({ status: 'rejected', reason: { reason: 'kid' } });
      expect(set).toEqual({ status: 'fulfilled', value: [pki.signingKey.jwk, second.jwk] });
      expect(loads).toBe(1);
      // Settled: the next fetch is a new one.
      await keys.refresh();
      expect(loads).toBe(2);
    });

    it('answers with the key its kid got from the store while its fetch ran', async () => {
      const gate = deferred<unknown>();
      const keys = source({ load: () => gate.promise });
      const fetching = keys.keyFor(pki.kid);
      await Promise.resolve();
      keys.restore([pki.signingKey.jwk]);
      const kept = await keys.keyFor(pki.kid, { fetch: false });
      // The set lacks the kid, yet the lookup has a key for it by then: no refusal.
      gate.resolve({ keys: [] });
      expect(await fetching).toBe(kept);
      expect(checks()).toBe(1);
    });

    it('gives the loader a signal of its own: no caller aborts the shared fetch', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      const controller = new AbortController();
      await keys.keyFor(pki.kid, { signal: controller.signal });
      controller.abort();
      expect(served.signals).toHaveLength(1);
      expect(served.signals[0]).not.toBe(controller.signal);
      expect(served.signals[0]!.aborted).toBe(false);
    });

    it('fetches nothing with fetch: false, yet checks what the last set published', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      await expect(keys.keyFor(pki.kid, { fetch: false })).rejects.toMatchObject({
        reason: 'kid',
        message: noKid(pki.kid),
      });
      expect(served.count).toBe(0);
      await keys.refresh();
      expect(checks()).toBe(0);
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(keys.find(pki.kid));
      expect(served.count).toBe(1);
      expect(checks()).toBe(1);
    });

    it('passes a loader error through, and a failed fetch starts no cooldown', async () => {
      const outage = new Error('main is down');
      let fail = true;
      let loads = 0;
      const keys = source({
        load: async () => {
          loads += 1;
          if (fail) throw outage;
          return { keys: [pki.signingKey.jwk] };
        },
      });
      expect(await rejectionOf(keys.keyFor(pki.kid))).toBe(outage);
      expect(await rejectionOf(keys.refresh())).toBe(outage);
      fail = false;
      expect(await keys.keyFor(pki.kid)).toBe(keys.find(pki.kid));
      expect(loads).toBe(3);
    });

    it('rejects a set without a keys array, and skips entries that are no JWK with a kid', async () => {
      const { load, served } = loaderOf();
      const keys = source({ load });
      for (const set of [undefined, null, {}, { keys: {} }, { keys: 'x' }, []]) {
        served.set = set;
        await expect(keys.keyFor(pki.kid)).rejects.toThrow(
          new TypeError('the JWK set has no keys array'),
        );
        await expect(keys.refresh()).rejects.toThrow(/the JWK set has no keys array/);
      }
      // Not a miss: every lookup fetched again.
      expect(served.count).toBe(12);
      const { kid: _kid, ...kidless } = second.jwk;
      served.set = {
        keys: [
          null,
          undefined,
          'jwk',
          7,
          kidless,
          { ...second.jwk, kid: '' },
          { ...second.jwk, kid: 7 },
          second.jwk,
        ],
      };
      const before = served.count;
      expect(await keys.refresh()).toEqual([second.jwk]);
      expect(served.count).toBe(before + 1);
      await expect(keys.keyFor('7', { fetch: false })).rejects.toMatchObject({ reason: 'kid' });
      await expect(keys.keyFor('', { fetch: false })).rejects.toMatchObject({ reason: 'kid' });
      expect(checks()).toBe(0);
    });

    it('keeps what the last good set published when a later answer is no set', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      await keys.refresh();
      served.set = { keys: 'broken' };
      await expect(keys.refresh()).rejects.toThrow(TypeError);
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(keys.find(pki.kid));
    });

    it('lets an unexpected failure of a check through instead of calling it a refusal', async () => {
      const hostile = {
        ...second.jwk,
        get use(): string {
          throw new RangeError('boom');
        },
      };
      const { load, served } = loaderOf(hostile);
      const keys = source({ load });
      await expect(keys.keyFor('second')).rejects.toThrow(RangeError);
      // Not recorded as a refusal: the same JWK is checked (and throws) again.
      served.set = { keys: [hostile] };
      await expect(keys.keyFor('second', { fetch: false })).rejects.toMatchObject({
        reason: 'kid',
      });
      await keys.refresh().catch(() => undefined);
      await expect(keys.keyFor('second', { fetch: false })).rejects.toThrow(RangeError);
      expect(checks()).toBe(2);
    });
  });

  describe('several JWKs under one kid: candidates checked in turn, at most four', () => {
    /** JWKs published under the default kid whose checks all fail, each differently. */
    const impostors = () => [
      foreign.jwk,
      { ...pki.signingKey.jwk, n: renamed.jwk.n },
      { ...renamed.jwk, n: pki.signingKey.jwk.n },
      { ...pki.signingKey.jwk, e: 'Aw' },
    ];

    it('checks each JWK of the kid in the set order until one passes', async () => {
      const { load, served } = loaderOf(foreign.jwk, second.jwk, pki.signingKey.jwk);
      const keys = source({ load });
      const key = await keys.keyFor(pki.kid);
      expect(keys.find(pki.kid)).toBe(key);
      expect(checked()).toEqual([foreign.jwk, pki.signingKey.jwk]);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
      expect(served.count).toBe(1);
    });

    it(`checks the first ${MAX_CANDIDATES_PER_KID} of a kid only: a set cannot make the work grow`, async () => {
      expect(MAX_CANDIDATES_PER_KID).toBe(4);
      // The genuine key fourth: checked, trusted.
      const fourth = loaderOf(...impostors().slice(0, 3), pki.signingKey.jwk);
      const trusting = source({ load: fourth.load });
      expect(await trusting.keyFor(pki.kid)).toBeDefined();
      expect(checked()).toEqual([...impostors().slice(0, 3), pki.signingKey.jwk]);
      vi.mocked(verifySigningKey).mockClear();
      // Fifth: never checked, the kid refused with the last check's reason.
      const fifth = loaderOf(...impostors(), pki.signingKey.jwk, pki.signingKey.jwk);
      const keys = source({ load: fifth.load });
      const refusal = await rejectionOf(keys.keyFor(pki.kid));
      expect(refusal).toBeInstanceOf(TokenInvalidError);
      expect(checked()).toEqual(impostors());
      expect(keys.find(pki.kid)).toBeUndefined();
      expect(keys.trusted()).toEqual([]);
      // Each candidate left once checked: within the cooldown nothing more is checked or fetched.
      await expect(keys.keyFor(pki.kid)).rejects.toBe(refusal);
      expect(checks()).toBe(MAX_CANDIDATES_PER_KID);
      expect(fifth.served.count).toBe(1);
    });
  });

  describe('the cooldown', () => {
    it('after a fetch without the kid asked for, no fetch for any unknown kid until it passes', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      await expect(keys.keyFor('missing')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(1);
      clock.now = T0 + COOLDOWN - 1;
      // Another random kid: refused at once, nothing fetched.
      await expect(keys.keyFor('random-1')).rejects.toMatchObject({
        reason: 'kid',
        message: noKid('random-1'),
      });
      await expect(keys.keyFor('missing')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(1);
      // A kid the set published is still answered: checked, not fetched.
      expect(await keys.keyFor(pki.kid)).toBe(keys.find(pki.kid));
      expect(served.count).toBe(1);
      clock.now = T0 + COOLDOWN;
      served.set = { keys: [pki.signingKey.jwk, second.jwk] };
      await expect(keys.keyFor('random-2')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(2);
      // That fetch lacked random-2 too: the cooldown runs from it.
      clock.now = T0 + 2 * COOLDOWN - 1;
      await expect(keys.keyFor('random-3')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(2);
      // ... and the set it brought is checked by kid without a fetch.
      expect(await keys.keyFor('second')).toBe(keys.find('second'));
      expect(served.count).toBe(2);
    });

    it('starts after a fetch that brought the kid a refused key, not after one that brought it a trusted key', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      await keys.keyFor(pki.kid);
      // That fetch found its kid: the next unknown kid fetches at once.
      served.set = { keys: [{ ...foreign.jwk, kid: 'bad' }] };
      await expect(keys.keyFor('bad')).rejects.toMatchObject({ reason: 'chain' });
      expect(served.count).toBe(2);
      // That one brought `bad` only a refused key: a miss.
      await expect(keys.keyFor('other')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(2);
    });

    it('lets the next fetch happen exactly cooldownMs after the miss, on the injected clock', async () => {
      const { load, served } = loaderOf();
      const keys = source({ load, cooldownMs: 0 });
      await expect(keys.keyFor('a')).rejects.toMatchObject({ reason: 'kid' });
      await expect(keys.keyFor('b')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(2);
      clock.now = T0 - 1;
      await expect(keys.keyFor('c')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(2);
    });

    it('refresh ignores it and returns the set as published, checking nothing new', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      await expect(keys.keyFor('missing')).rejects.toMatchObject({ reason: 'kid' });
      served.set = { keys: [second.jwk, foreign.jwk] };
      const set = await keys.refresh();
      expect(set).toEqual([second.jwk, foreign.jwk]);
      expect(set[0]).toBe(second.jwk);
      expect(served.count).toBe(2);
      expect(checks()).toBe(0);
      expect(keys.trusted()).toEqual([]);
      // The cooldown still holds for unknown kids.
      await expect(keys.keyFor('random')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(2);
    });

    it('refresh with an aborted signal rejects with its reason', async () => {
      const { load } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      const controller = new AbortController();
      const reason = new Error('stop');
      const refreshing = keys.refresh(controller.signal);
      controller.abort(reason);
      expect(await rejectionOf(refreshing)).toBe(reason);
    });
  });

  describe('a trusted kid keeps its key', () => {
    it('another key under its name is neither checked nor trusted', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      const trusted = await keys.keyFor(pki.kid);
      served.set = { keys: [renamed.jwk] };
      await keys.refresh();
      expect(checks()).toBe(1);
      expect(keys.find(pki.kid)).toBe(trusted);
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(trusted);
      // Another exponent is another key too.
      served.set = { keys: [{ ...reissued.jwk, e: 'AQAC' }] };
      await keys.refresh();
      expect(checks()).toBe(1);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
      // The same JWK again is not checked again.
      served.set = { keys: [pki.signingKey.jwk] };
      await keys.refresh();
      expect(checks()).toBe(1);
      // Nor is a kept one: the store cannot replace a trusted key either.
      keys.restore([renamed.jwk]);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(trusted);
      expect(checks()).toBe(1);
    });

    it('a re-issued chain for the same key replaces the JWK on any fetch', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      const before = await keys.keyFor(pki.kid);
      // A fetch for another kid checks the trusted kid's new chain too.
      served.set = { keys: [reissued.jwk, second.jwk] };
      await keys.keyFor('second');
      expect(checks()).toBe(3);
      expect(checked()[1]).toBe(reissued.jwk);
      const after = keys.find(pki.kid);
      expect(after).toBeDefined();
      expect(after).not.toBe(before);
      expect(keys.trusted()).toEqual([reissued.jwk, second.jwk]);
    });

    it('a re-issued chain that fails its check changes nothing', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      const trusted = await keys.keyFor(pki.kid);
      served.set = { keys: [foreign.jwk] };
      await keys.refresh();
      expect(checks()).toBe(2);
      expect(keys.find(pki.kid)).toBe(trusted);
      expect(await keys.keyFor(pki.kid)).toBe(trusted);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
    });

    it('a set that lacks a trusted kid takes nothing away', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      const trusted = await keys.keyFor(pki.kid);
      served.set = { keys: [] };
      await keys.refresh();
      expect(keys.find(pki.kid)).toBe(trusted);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
    });
  });

  describe('refusals', () => {
    it('are recorded by fingerprint: the same JWK is not checked again, and says why each time', async () => {
      const { load, served } = loaderOf(foreign.jwk);
      const keys = source({ load });
      const first = await rejectionOf(keys.keyFor(pki.kid));
      expect(first).toMatchObject({ reason: 'chain' });
      expect(checks()).toBe(1);
      clock.now = T0 + COOLDOWN;
      expect(await rejectionOf(keys.keyFor(pki.kid))).toBe(first);
      expect(served.count).toBe(2);
      expect(checks()).toBe(1);
      // The same JWK from the store: not checked either.
      keys.restore([foreign.jwk]);
      expect(await rejectionOf(keys.keyFor(pki.kid, { fetch: false }))).toBe(first);
      expect(checks()).toBe(1);
      expect(keys.trusted()).toEqual([]);
    });

    it('another JWK of a refused kid is checked, and trusted when it passes', async () => {
      const { load, served } = loaderOf(foreign.jwk);
      const keys = source({ load });
      await expect(keys.keyFor(pki.kid)).rejects.toMatchObject({ reason: 'chain' });
      served.set = { keys: [reissued.jwk] };
      await keys.refresh();
      const key = await keys.keyFor(pki.kid);
      expect(checks()).toBe(2);
      expect(keys.find(pki.kid)).toBe(key);
      expect(keys.trusted()).toEqual([reissued.jwk]);
    });
  });

  describe('restore: the keys a lease store kept', () => {
    it('trusts none before its check, checks each lazily and once, concurrent callers sharing it', async () => {
      const keys = source();
      keys.restore([pki.signingKey.jwk, second.jwk]);
      expect(checks()).toBe(0);
      expect(keys.find(pki.kid)).toBeUndefined();
      expect(keys.trusted()).toEqual([pki.signingKey.jwk, second.jwk]);
      const [first, again] = await Promise.all([
        keys.keyFor(pki.kid, { fetch: false }),
        keys.keyFor(pki.kid, { fetch: false }),
      ]);
      expect(first).toBeDefined();
      expect(again).toBe(first);
      expect(keys.find(pki.kid)).toBe(first);
      expect(checks()).toBe(1);
      expect(await keys.keyFor(pki.kid)).toBe(first);
      expect(checks()).toBe(1);
      // `second` was not needed: not checked, still kept.
      expect(keys.find('second')).toBeUndefined();
      expect(keys.trusted()).toEqual([pki.signingKey.jwk, second.jwk]);
    });

    it('checks the kept key before the published one, and the published one only if the kept failed', async () => {
      const { load } = loaderOf(reissued.jwk);
      const keys = source({ load });
      await keys.refresh();
      keys.restore([pki.signingKey.jwk]);
      await keys.keyFor(pki.kid);
      expect(checked()).toEqual([pki.signingKey.jwk]);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);

      vi.mocked(verifySigningKey).mockClear();
      const other = source({ load });
      await other.refresh();
      other.restore([foreign.jwk]);
      const key = await other.keyFor(pki.kid, { fetch: false });
      expect(checked()).toEqual([foreign.jwk, reissued.jwk]);
      expect(other.find(pki.kid)).toBe(key);
      expect(other.trusted()).toEqual([reissued.jwk]);
    });

    it('a kept key that fails its check is dropped, and a fetch may still bring a good one', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      keys.restore([foreign.jwk]);
      await expect(keys.keyFor(pki.kid, { fetch: false })).rejects.toMatchObject({
        reason: 'chain',
      });
      expect(keys.trusted()).toEqual([]);
      expect(served.count).toBe(0);
      expect(await keys.keyFor(pki.kid)).toBe(keys.find(pki.kid));
      expect(served.count).toBe(1);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
    });

    it('a kept kid that fails is fetched for at once: the store starts no cooldown', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      keys.restore([{ ...foreign.jwk, kid: 'gone' }]);
      await expect(keys.keyFor('gone')).rejects.toMatchObject({ reason: 'chain' });
      expect(served.count).toBe(1);
      // That fetch lacked `gone`: now the cooldown holds.
      await expect(keys.keyFor('other')).rejects.toMatchObject({ reason: 'kid' });
      expect(served.count).toBe(1);
    });

    it('skips entries without a kid and kids it trusts already', async () => {
      const { load } = loaderOf(second.jwk);
      const keys = source({ load });
      await keys.keyFor('second');
      const { kid: _kid, ...kidless } = pki.signingKey.jwk;
      keys.restore([
        kidless,
        { ...pki.signingKey.jwk, kid: '' },
        { ...pki.signingKey.jwk, kid: 5 },
        null as never,
        { ...reissued.jwk, kid: 'second' },
      ]);
      expect(keys.trusted()).toEqual([second.jwk]);
      expect(checks()).toBe(1);
    });

    it('lists the trusted JWKs, then the kept ones not checked yet', async () => {
      const keys = source();
      keys.restore([pki.signingKey.jwk, second.jwk]);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk, second.jwk]);
      await keys.keyFor('second');
      expect(keys.trusted()).toEqual([second.jwk, pki.signingKey.jwk]);
      await keys.keyFor(pki.kid);
      // Trusted now, in the order trusted.
      expect(keys.trusted()).toEqual([second.jwk, pki.signingKey.jwk]);
    });

    it('keeps a JWK kept anew while an earlier one of its kid was being checked', async () => {
      const keys = source();
      keys.restore([foreign.jwk]);
      const release = await holdNextCheck();
      const first = keys.keyFor(pki.kid, { fetch: false });
      keys.restore([reissued.jwk]);
      release();
      await expect(first).rejects.toMatchObject({ reason: 'chain' });
      expect(keys.trusted()).toEqual([reissued.jwk]);
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(keys.find(pki.kid));
      expect(keys.trusted()).toEqual([reissued.jwk]);
    });

    it('keeps a JWK published anew while an earlier one of its kid was being checked', async () => {
      const { load, served } = loaderOf(foreign.jwk);
      const keys = source({ load });
      await keys.refresh();
      const release = await holdNextCheck();
      const first = keys.keyFor(pki.kid, { fetch: false });
      served.set = { keys: [reissued.jwk] };
      await keys.refresh();
      release();
      await expect(first).rejects.toMatchObject({ reason: 'chain' });
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(keys.find(pki.kid));
      expect(keys.trusted()).toEqual([reissued.jwk]);
    });

    it('a set fetched while a kept key is checked does not displace it', async () => {
      const { load, served } = loaderOf();
      const keys = source({ load });
      keys.restore([pki.signingKey.jwk]);
      const release = await holdNextCheck();
      const kept = keys.keyFor(pki.kid, { fetch: false });
      served.set = { keys: [renamed.jwk] };
      const refreshed = keys.refresh();
      release();
      const key = await kept;
      await refreshed;
      // The kept key was trusted first; the renamed key under its kid is not even checked.
      expect(keys.find(pki.kid)).toBe(key);
      expect(checked()).toEqual([pki.signingKey.jwk]);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
    });
  });

  describe('the budget of a lookup that fetches', () => {
    it('rejects with timeoutError() once timeoutMs passed waiting for the set', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const outage = new Error('standby timed out');
      const gate = deferred<unknown>();
      const keys = source({
        load: () => gate.promise,
        timeoutMs: 3_000,
        timeoutError: () => outage,
      });
      let settled: unknown;
      const lookup = keys.keyFor(pki.kid).then(
        () => 'resolved',
        (error: unknown) => error,
      );
      void lookup.then((value) => {
        settled = value;
      });
      await vi.advanceTimersByTimeAsync(2_999);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(await lookup).toBe(outage);
      // The fetch itself goes on: what it brings serves the next lookup, with no new load and no
      // cooldown (an overrun is an outage, not a miss).
      gate.resolve({ keys: [pki.signingKey.jwk] });
      await vi.advanceTimersByTimeAsync(0);
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(keys.find(pki.kid));
      expect(vi.getTimerCount()).toBe(0);
    });

    it('covers the check of the key as well as the read', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { load } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load, timeoutMs: 1_000 });
      const release = await holdNextCheck();
      const lookup = rejectionOf(keys.keyFor(pki.kid));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await lookup).toEqual(new Error('timed out'));
      release();
      // The check goes on in the background and its key is trusted: a later lookup shares it.
      expect(await keys.keyFor(pki.kid, { fetch: false })).toBe(keys.find(pki.kid));
      expect(checks()).toBe(1);
    });

    it('clears its timer once the lookup settled, and sets none without timeoutMs', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { load } = loaderOf(pki.signingKey.jwk);
      const timed = source({ load, timeoutMs: 1_000 });
      await timed.keyFor(pki.kid);
      expect(vi.getTimerCount()).toBe(0);
      await expect(timed.keyFor('missing')).rejects.toMatchObject({ reason: 'kid' });
      expect(vi.getTimerCount()).toBe(0);

      const gate = deferred<unknown>();
      const untimed = source({ load: () => gate.promise });
      const lookup = untimed.keyFor(pki.kid);
      await vi.advanceTimersByTimeAsync(0);
      expect(vi.getTimerCount()).toBe(0);
      gate.resolve({ keys: [pki.signingKey.jwk] });
      expect(await lookup).toBe(untimed.find(pki.kid));
    });

    it('does not time a lookup that fetches nothing', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const keys = source({ load: loaderOf().load, timeoutMs: 1 });
      keys.restore([pki.signingKey.jwk]);
      const release = await holdNextCheck();
      const lookup = keys.keyFor(pki.kid);
      await vi.advanceTimersByTimeAsync(0);
      expect(vi.getTimerCount()).toBe(0);
      release();
      expect(await lookup).toBe(keys.find(pki.kid));
    });
  });

  describe('the signal', () => {
    it('an aborted signal rejects with its reason before anything is checked or fetched', async () => {
      const { load, served } = loaderOf(pki.signingKey.jwk);
      const keys = source({ load });
      keys.restore([pki.signingKey.jwk]);
      const reason = new Error('gone');
      const signal = AbortSignal.abort(reason);
      expect(await rejectionOf(keys.keyFor(pki.kid, { signal }))).toBe(reason);
      expect(await rejectionOf(keys.keyFor('missing', { signal }))).toBe(reason);
      expect(checks()).toBe(0);
      expect(served.count).toBe(0);
      expect(await rejectionOf(keys.refresh(signal))).toBe(reason);
    });

    it('an aborted signal rejects even for a kid it holds', async () => {
      const keys = source();
      keys.restore([pki.signingKey.jwk]);
      await keys.keyFor(pki.kid);
      const reason = new Error('gone');
      expect(await rejectionOf(keys.keyFor(pki.kid, { signal: AbortSignal.abort(reason) }))).toBe(
        reason,
      );
      expect(keys.find(pki.kid)).toBeDefined();
    });

    it('an abort during the fetch rejects the caller, and the fetch goes on for the others', async () => {
      const gate = deferred<unknown>();
      let loads = 0;
      const keys = source({
        load: () => {
          loads += 1;
          return gate.promise;
        },
      });
      const controller = new AbortController();
      const reason = new Error('left the page');
      const aborted = rejectionOf(keys.keyFor(pki.kid, { signal: controller.signal }));
      const other = keys.keyFor(pki.kid);
      controller.abort(reason);
      expect(await aborted).toBe(reason);
      gate.resolve({ keys: [pki.signingKey.jwk] });
      expect(await other).toBe(keys.find(pki.kid));
      expect(loads).toBe(1);
      // The aborted lookup started no cooldown.
      await expect(keys.keyFor('missing')).rejects.toMatchObject({ reason: 'kid' });
      expect(loads).toBe(2);
    });

    it('an abort during the check of a kept key rejects the caller; the check still trusts it', async () => {
      const keys = source();
      keys.restore([pki.signingKey.jwk]);
      const release = await holdNextCheck();
      const controller = new AbortController();
      const reason = new Error('stop');
      const aborted = rejectionOf(keys.keyFor(pki.kid, { signal: controller.signal }));
      controller.abort(reason);
      expect(await aborted).toBe(reason);
      release();
      const key = await keys.keyFor(pki.kid, { fetch: false });
      expect(keys.find(pki.kid)).toBe(key);
      expect(checks()).toBe(1);
    });
  });
});
