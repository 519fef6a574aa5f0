// One service's key source (DECISIONS.md "Lease trust (third wave)", "Key sets"): a JWK is
// trusted only once its chain verified, sets merge by kid, a bad answer never takes a trusted key
// away, kept keys are checked again before use, and a kid a fetch lacked waits for the cooldown.
import {
  createTestPki,
  createTestRoot,
  createTestSigningKey,
  type TestPki,
  type TestSigningKey,
} from '@test/helpers/test-pki.js';
import { x509 } from '@test/helpers/x509.js';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TokenInvalidError } from '../errors.js';
import { parseCertificate } from '../internal/certificate.js';
import type { TrustAnchor } from './certificate-chain.js';
import { createServiceKeys } from './service-keys.js';
import { verifySigningKey } from './signing-key-check.js';

vi.mock('./signing-key-check.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./signing-key-check.js')>();
  return { ...original, verifySigningKey: vi.fn(original.verifySigningKey) };
});

const T0 = Date.UTC(2030, 0, 1);
const COOLDOWN = 30_000;
const now = () => T0;

let pki: TestPki;
let anchors: TrustAnchor[];
/** Another key under the root (kid `second`). */
let second: TestSigningKey;
/** The default kid's key pair under another certificate: the same kid republished. */
let republished: TestSigningKey;
/** A key whose chain leads to another root, published under the default kid. */
let foreign: TestSigningKey;
/** Another key pair under the root, published under the default kid. */
let renamed: TestSigningKey;

beforeAll(async () => {
  pki = await createTestPki({ now });
  const keys = pki.signingKey.keys;
  second = await pki.createSigningKey({ kid: 'second', keys });
  republished = await pki.createSigningKey({ kid: pki.kid, keys, name: 'Republished' });
  foreign = await createTestSigningKey(await createTestRoot({ now }), { now, kid: pki.kid, keys });
  renamed = await pki.createSigningKey({ kid: pki.kid, name: 'Renamed' });
});

/** Holds the next key check until `release()`; then it runs the real check. */
async function holdNextCheck() {
  const real = (
    await vi.importActual<typeof import('./signing-key-check.js')>('./signing-key-check.js')
  ).verifySigningKey;
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  vi.mocked(verifySigningKey).mockImplementationOnce(async (...args) => {
    await gate;
    return real(...args);
  });
  return release;
}

// Parsed for each test (not once for all), so each test's coverage includes what it runs.
beforeEach(() => {
  const cert = parseCertificate(new x509.X509Certificate(pki.rootPem).rawData);
  anchors = [{ cert, der: cert.der }];
  vi.mocked(verifySigningKey).mockClear();
});

function source(embedHint?: string) {
  return createServiceKeys({
    service: 'standby',
    anchors,
    cooldownMs: COOLDOWN,
    ...(embedHint === undefined ? {} : { embedHint }),
  });
}

const byKid = (jwks: Array<Record<string, unknown>>) =>
  [...jwks].sort((a, b) => String(a.kid).localeCompare(String(b.kid)));

const checks = () => vi.mocked(verifySigningKey).mock.calls.length;

describe('createServiceKeys', () => {
  it('starts empty: no key, nothing to keep, a kid refusal, fetches allowed', async () => {
    const keys = source();
    expect(keys.service).toBe('standby');
    expect(keys.find(pki.kid)).toBeUndefined();
    expect(await keys.trustKept(pki.kid)).toBeUndefined();
    expect(keys.trusted()).toEqual([]);
    expect(keys.mayFetch(pki.kid, T0)).toBe(true);
    const refusal = keys.refusal('nope');
    expect(refusal).toBeInstanceOf(TokenInvalidError);
    expect(refusal.reason).toBe('kid');
    expect(refusal.message).toBe(
      'the standby service publishes no key with kid nope. Check that standbyUrl is the service that issued the token, or check the item out again.',
    );
  });

  it('trusts the keys of a published set whose chain verified, and says the set changed', async () => {
    const keys = source();
    expect(await keys.merge({ keys: [pki.signingKey.jwk, second.jwk] }, T0)).toBe(true);
    expect(keys.find(pki.kid)?.validity).toHaveLength(2);
    expect(keys.find('second')).toBeDefined();
    expect(await keys.trustKept('second')).toBe(keys.find('second'));
    // Checks settle in any order: the order of the list is not a promise.
    expect(byKid(keys.trusted())).toEqual(byKid([pki.signingKey.jwk, second.jwk]));
    expect(checks()).toBe(2);
    // The same set again: nothing to check, nothing changed.
    expect(await keys.merge({ keys: [second.jwk, pki.signingKey.jwk] }, T0 + 1)).toBe(false);
    expect(checks()).toBe(2);
  });

  it('passes the service and the embed hint to the check', async () => {
    const hinted = source('Run embed-root.');
    await hinted.merge({ keys: [foreign.jwk] }, T0);
    expect(vi.mocked(verifySigningKey)).toHaveBeenLastCalledWith(foreign.jwk, pki.kid, anchors, {
      service: 'standby',
      embedHint: 'Run embed-root.',
    });
    expect(hinted.refusal(pki.kid).message).toMatch(/Run embed-root\.$/);
    await source().merge({ keys: [foreign.jwk] }, T0);
    expect(vi.mocked(verifySigningKey)).toHaveBeenLastCalledWith(foreign.jwk, pki.kid, anchors, {
      service: 'standby',
    });
  });

  it('names mainUrl in the refusal of a kid main does not publish', () => {
    const keys = createServiceKeys({ service: 'main', anchors, cooldownMs: COOLDOWN });
    expect(keys.refusal('nope').message).toBe(
      'the main service publishes no key with kid nope. Check that mainUrl is the service that issued the token, or check the item out again.',
    );
  });

  it('keeps the key of a trusted kid: another key under its name is not even checked', async () => {
    const keys = source();
    await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
    const trusted = keys.find(pki.kid);
    expect(await keys.merge({ keys: [renamed.jwk] }, T0 + 1)).toBe(false);
    expect(checks()).toBe(1);
    expect(keys.find(pki.kid)).toBe(trusted);
    expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
    // Another exponent is another key too.
    expect(await keys.merge({ keys: [{ ...republished.jwk, e: 'AQAC' }] }, T0 + 2)).toBe(false);
    expect(checks()).toBe(1);
    expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
  });

  it('keeps the key trusted while another key of its kid was being checked', async () => {
    const keys = source();
    const release = await holdNextCheck();
    const slow = keys.merge({ keys: [renamed.jwk] }, T0);
    expect(await keys.merge({ keys: [pki.signingKey.jwk] }, T0)).toBe(true);
    release();
    // The renamed key's chain verifies, but the kid has its key by then.
    expect(await slow).toBe(false);
    expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
  });

  it('keeps keys a later set lacks: a set only adds or replaces by kid', async () => {
    const keys = source();
    await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
    expect(await keys.merge({ keys: [] }, T0 + 1)).toBe(false);
    expect(await keys.merge({ keys: [second.jwk] }, T0 + 2)).toBe(true);
    expect(keys.find(pki.kid)).toBeDefined();
    expect(keys.trusted().map((jwk) => jwk.kid)).toEqual([pki.kid, 'second']);
  });

  it('replaces a trusted key by a republished JWK of its kid that verifies', async () => {
    const keys = source();
    await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
    const before = keys.find(pki.kid);
    expect(await keys.merge({ keys: [republished.jwk] }, T0 + 1)).toBe(true);
    expect(keys.find(pki.kid)).not.toBe(before);
    expect(keys.trusted()).toEqual([republished.jwk]);
  });

  it('never lets a refused JWK replace the trusted key of its kid, and says why it was refused', async () => {
    const keys = source();
    await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
    const trusted = keys.find(pki.kid);
    expect(await keys.merge({ keys: [foreign.jwk] }, T0 + 1)).toBe(false);
    expect(keys.find(pki.kid)).toBe(trusted);
    expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
    expect(keys.refusal(pki.kid).reason).toBe('chain');
  });

  it('records a refused JWK with its reason and checks that content only once', async () => {
    const keys = source();
    expect(await keys.merge({ keys: [foreign.jwk] }, T0)).toBe(false);
    expect(keys.find(pki.kid)).toBeUndefined();
    expect(keys.refusal(pki.kid).reason).toBe('chain');
    expect(keys.refusal(pki.kid).message).toMatch(/^the standby service's signing key/);
    expect(keys.mayFetch(pki.kid, T0 + COOLDOWN - 1)).toBe(false);
    expect(keys.mayFetch(pki.kid, T0 + COOLDOWN)).toBe(true);
    expect(checks()).toBe(1);
    // Published again later: not checked again, but the cooldown restarts from this fetch.
    expect(await keys.merge({ keys: [foreign.jwk] }, T0 + 10_000)).toBe(false);
    expect(checks()).toBe(1);
    expect(keys.mayFetch(pki.kid, T0 + COOLDOWN)).toBe(false);
    expect(keys.mayFetch(pki.kid, T0 + 10_000 + COOLDOWN)).toBe(true);
    // A good JWK of that kid is trusted and clears the refusal.
    expect(await keys.merge({ keys: [pki.signingKey.jwk] }, T0 + 10_001)).toBe(true);
    expect(keys.refusal(pki.kid).reason).toBe('kid');
    expect(keys.mayFetch(pki.kid, T0 + 10_001)).toBe(true);
  });

  it('checks a republished JWK of a refused kid again', async () => {
    const keys = source();
    await keys.merge({ keys: [foreign.jwk] }, T0);
    expect(await keys.merge({ keys: [republished.jwk] }, T0 + 1)).toBe(true);
    expect(checks()).toBe(2);
    expect(keys.find(pki.kid)).toBeDefined();
  });

  it('shares one check among concurrent merges of the same JWK', async () => {
    const keys = source();
    const results = await Promise.all([
      keys.merge({ keys: [pki.signingKey.jwk] }, T0),
      keys.merge({ keys: [pki.signingKey.jwk] }, T0),
    ]);
    expect(checks()).toBe(1);
    expect(results).toEqual([true, true]);
    // Once settled, a fresh source's check is a new one.
    await source().merge({ keys: [pki.signingKey.jwk] }, T0);
    expect(checks()).toBe(2);
  });

  it('checks the same content again once an earlier check settled', async () => {
    const keys = source();
    await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
    await keys.merge({ keys: [republished.jwk] }, T0);
    await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
    expect(checks()).toBe(3);
  });

  it('rejects a set without a keys array, and skips entries that are no JWK with a kid', async () => {
    const keys = source();
    for (const jwks of [undefined, null, {}, { keys: {} }, { keys: 'x' }, []]) {
      await expect(keys.merge(jwks, T0)).rejects.toThrow(/the JWK set has no keys array/);
    }
    const { kid: _kid, ...noKid } = second.jwk;
    const set = {
      keys: [
        null,
        undefined,
        'jwk',
        7,
        noKid,
        { ...second.jwk, kid: '' },
        { ...second.jwk, kid: 7 },
      ],
    };
    expect(await keys.merge(set, T0)).toBe(false);
    expect(checks()).toBe(0);
    expect(keys.trusted()).toEqual([]);
  });

  it('lets an unexpected failure of a check through instead of calling it a refusal', async () => {
    const keys = source();
    const hostile = {
      ...second.jwk,
      get use(): string {
        throw new RangeError('boom');
      },
    };
    await expect(keys.merge({ keys: [hostile] }, T0)).rejects.toThrow(RangeError);
    expect(keys.refusal('second').reason).toBe('kid');
  });

  describe('fetchedFor', () => {
    it('refuses a kid the last set lacked until the cooldown has passed', async () => {
      const keys = source();
      await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
      keys.fetchedFor('missing', T0);
      expect(keys.mayFetch('missing', T0 + COOLDOWN - 1)).toBe(false);
      expect(keys.mayFetch('missing', T0 + COOLDOWN)).toBe(true);
      expect(keys.refusal('missing').reason).toBe('kid');
      expect(keys.refusal('missing').message).toBe(
        'the standby service publishes no key with kid missing. Check that standbyUrl is the service that issued the token, or check the item out again.',
      );
    });

    it('leaves a kid the set held alone: trusted, or refused with its own reason', async () => {
      const keys = source();
      await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
      keys.fetchedFor(pki.kid, T0);
      expect(keys.mayFetch(pki.kid, T0)).toBe(true);
      const refusing = source();
      await refusing.merge({ keys: [foreign.jwk] }, T0);
      refusing.fetchedFor(pki.kid, T0 + 1);
      expect(refusing.refusal(pki.kid).reason).toBe('chain');
    });

    it('refuses a kid that is trusted from an earlier set but not in the last one only if untrusted', async () => {
      const keys = source();
      await keys.merge({ keys: [second.jwk] }, T0);
      await keys.merge({ keys: [pki.signingKey.jwk] }, T0 + 1);
      keys.fetchedFor('second', T0 + 2);
      expect(keys.mayFetch('second', T0 + 2)).toBe(true);
      expect(keys.find('second')).toBeDefined();
    });
  });

  describe('restore and trustKept', () => {
    it('trusts no kept key before it was checked again, and checks it once', async () => {
      const keys = source();
      keys.restore([pki.signingKey.jwk, second.jwk]);
      // Both checks start at once, off the path of the first request.
      expect(checks()).toBe(2);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk, second.jwk]);
      // Checks started in the background; the first use waits for its own.
      const key = await keys.trustKept(pki.kid);
      expect(key).toBeDefined();
      expect(keys.find(pki.kid)).toBe(key);
      expect(await keys.trustKept('second')).toBe(keys.find('second'));
      expect(checks()).toBe(2);
      // Checks settle in any order: the order of the list is not a promise.
      expect(byKid(keys.trusted())).toEqual(byKid([pki.signingKey.jwk, second.jwk]));
    });

    it('shares the check in flight with a caller that asks meanwhile', async () => {
      const keys = source();
      keys.restore([pki.signingKey.jwk]);
      const [first, again] = await Promise.all([keys.trustKept(pki.kid), keys.trustKept(pki.kid)]);
      expect(first).toBeDefined();
      expect(again).toBe(first);
      expect(checks()).toBe(1);
    });

    it('drops a kept key that fails the check, without a refusal: a fetch may still bring a good one', async () => {
      const keys = source();
      keys.restore([foreign.jwk]);
      expect(await keys.trustKept(pki.kid)).toBeUndefined();
      expect(keys.find(pki.kid)).toBeUndefined();
      expect(keys.trusted()).toEqual([]);
      expect(keys.refusal(pki.kid).reason).toBe('kid');
      expect(keys.mayFetch(pki.kid, T0)).toBe(true);
    });

    it('does not move the cooldown of a refused JWK when the same one comes back from the store', async () => {
      const keys = source();
      await keys.merge({ keys: [foreign.jwk] }, T0);
      keys.restore([foreign.jwk]);
      expect(await keys.trustKept(pki.kid)).toBeUndefined();
      expect(keys.mayFetch(pki.kid, T0 + COOLDOWN)).toBe(true);
      expect(checks()).toBe(1);
    });

    it('keeps a trusted key over a kept one of the same kid, and skips entries without a kid', async () => {
      const keys = source();
      await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
      const trusted = keys.find(pki.kid);
      const { kid: _kid, ...noKid } = second.jwk;
      keys.restore([
        foreign.jwk,
        noKid,
        { ...second.jwk, kid: '' },
        { ...second.jwk, kid: 5 },
        null as never,
      ]);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
      expect(await keys.trustKept(pki.kid)).toBe(trusted);
      expect(checks()).toBe(1);
    });

    it('settles the kept key of a kid before a fetched set brings another key for it', async () => {
      const keys = source();
      const release = await holdNextCheck();
      keys.restore([pki.signingKey.jwk]);
      const fetched = keys.merge({ keys: [renamed.jwk] }, T0);
      release();
      expect(await fetched).toBe(false);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
      expect(keys.find(pki.kid)).toBe(await keys.trustKept(pki.kid));
    });

    it('lets a published key replace a kept one not checked yet', async () => {
      const keys = source();
      keys.restore([foreign.jwk]);
      const keptCheck = keys.trustKept(pki.kid);
      await keys.merge({ keys: [pki.signingKey.jwk] }, T0);
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
      expect(await keys.trustKept(pki.kid)).toBe(keys.find(pki.kid));
      // The kept key's own check, refused, changes nothing.
      await keptCheck;
      expect(keys.find(pki.kid)).toBeDefined();
      expect(keys.trusted()).toEqual([pki.signingKey.jwk]);
    });

    it('keeps a JWK kept anew while an earlier one of its kid was being checked', async () => {
      const keys = source();
      keys.restore([foreign.jwk]);
      const first = keys.trustKept(pki.kid);
      keys.restore([republished.jwk]);
      // The foreign chain fails at once; the republished key's check is still running.
      expect(await first).toBeUndefined();
      expect(keys.trusted()).toEqual([republished.jwk]);
      expect(await keys.trustKept(pki.kid)).toBeDefined();
      expect(keys.trusted()).toEqual([republished.jwk]);
    });

    it('lists kept keys not checked yet after the trusted ones', async () => {
      const keys = source();
      await keys.merge({ keys: [second.jwk] }, T0);
      keys.restore([pki.signingKey.jwk]);
      expect(keys.trusted()).toEqual([second.jwk, pki.signingKey.jwk]);
      await keys.trustKept(pki.kid);
      expect(keys.trusted()).toEqual([second.jwk, pki.signingKey.jwk]);
    });
  });
});
