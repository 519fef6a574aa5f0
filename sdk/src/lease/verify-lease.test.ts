// The one decision whether a token is a lease (DECISIONS.md "Lease trust (third wave)"), with real
// keys, certificates and signatures, judged at an injected time: the key and its certificate
// dates, the signature, numeric iat and exp, nbf, the times either side of the tolerance, the
// item, jti and lic, and the device.

import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestPki, type TestPki, type TestSigningKey } from '../../test/helpers/test-pki.js';
import { x509 } from '../../test/helpers/x509.js';
import { TokenInvalidError } from '../errors.js';
import { parseCertificate } from '../internal/certificate.js';
import type { LeaseClaims } from '../types.js';
import { readLeaseToken } from './lease-token.js';
import { createServiceKeys, type ServiceKeys } from './service-keys.js';
import {
  checkLeaseClaims,
  FINAL_REFUSALS,
  soleGrantedItem,
  verifyLease,
  verifySignedToken,
} from './verify-lease.js';

const T0 = Date.UTC(2030, 0, 1);
const S0 = T0 / 1000;
const DAY = 86_400_000;
const TOLERANCE = 60_000;
const RULES = { at: T0, toleranceMs: TOLERANCE };
const LEASE_RULES = { ...RULES, item: 'ItemA' };

let pki: TestPki;
let keys: ServiceKeys;
/** The default key pair under a certificate that expired a day before T0. */
let expired: TestSigningKey;
/** The default key pair under a certificate valid from a day after T0. */
let future: TestSigningKey;

beforeAll(async () => {
  pki = await createTestPki({ now: () => T0 });
  const signing = pki.signingKey.keys;
  expired = await pki.createSigningKey({
    kid: 'expired',
    keys: signing,
    notBefore: new Date(T0 - 10 * DAY),
    notAfter: new Date(T0 - DAY),
  });
  future = await pki.createSigningKey({
    kid: 'future',
    keys: signing,
    notBefore: new Date(T0 + DAY),
    notAfter: new Date(T0 + 10 * DAY),
  });
});

// Built for each test (not once for all): what it runs is then each test's own coverage, so a
// mutation run runs only the tests that reach a mutant.
beforeEach(async () => {
  keys = await keySource();
});

async function keySource(): Promise<ServiceKeys> {
  const cert = parseCertificate(new x509.X509Certificate(pki.rootPem).rawData);
  const source = createServiceKeys({
    service: 'standby',
    anchors: [{ cert, der: cert.der }],
    cooldownMs: 30_000,
    now: () => T0,
  });
  // As a lease store kept them: each is checked when a token first needs it.
  source.restore([pki.signingKey.jwk, expired.jwk, future.jwk]);
  return source;
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');

/** Signs `payload` (claims, or the exact JSON text) with the default key, nothing filled in. */
async function sign(payload: Record<string, unknown> | string, kid = pki.kid): Promise<string> {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const input = `${b64(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }))}.${b64(text)}`;
  const signature = await globalThis.crypto.subtle.sign(
    'RSASSA-PKCS1-v1_5',
    pki.signingKey.keys.privateKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

const lease = (extra: Record<string, unknown> = {}) => ({
  ItemA: true,
  jti: 'J1',
  lic: 'L1',
  iat: S0,
  exp: S0 + 8 * 3600,
  ...extra,
});

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<TokenInvalidError> {
  let error: unknown;
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(TokenInvalidError);
  return error as TokenInvalidError;
}

describe('FINAL_REFUSALS', () => {
  it('holds the reasons that say the token itself is bad, and no key, clock or device reason', () => {
    expect([...FINAL_REFUSALS].sort()).toEqual([
      'alg',
      'item',
      'malformed',
      'not-a-lease',
      'signature',
    ]);
  });
});

describe('verifySignedToken', () => {
  it('returns the claims of a token signed by a trusted key, given as text or read', async () => {
    const token = await sign(lease());
    expect(await verifySignedToken(token, keys, RULES)).toEqual(lease());
    expect(await verifySignedToken(readLeaseToken(token), keys, RULES)).toEqual(lease());
  });

  it('checks the form first', async () => {
    const error = await refusal(verifySignedToken('a.b', keys, RULES));
    expect(error.reason).toBe('malformed');
  });

  it('refuses a kid the service has no trusted key for, with the key source reason', async () => {
    const error = await refusal(verifySignedToken(await sign(lease(), 'unknown'), keys, RULES));
    expect(error.reason).toBe('kid');
    expect(error.message).toMatch(/publishes no key with kid unknown/);
  });

  it('asks the key source for a key it does not hold, fetching only when the lookup allows', async () => {
    const cert = parseCertificate(new x509.X509Certificate(pki.rootPem).rawData);
    const load = vi.fn(async () => ({ keys: [pki.signingKey.jwk] }));
    const remote = createServiceKeys({
      service: 'main',
      anchors: [{ cert, der: cert.der }],
      cooldownMs: 1,
      now: () => T0,
      load,
    });
    const token = await sign(lease());
    expect((await refusal(verifySignedToken(token, remote, RULES))).reason).toBe('kid');
    expect(load).not.toHaveBeenCalled();
    expect(await verifySignedToken(token, remote, RULES, { fetch: true })).toEqual(lease());
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('reads a time given as a function once the key is known', async () => {
    const at = vi.fn(() => T0);
    expect(await verifySignedToken(await sign(lease()), keys, { ...RULES, at })).toEqual(lease());
    expect(at).toHaveBeenCalledTimes(1);
  });

  it('refuses a key whose certificate expired or is not valid yet at the judged time, within the tolerance', async () => {
    const late = await refusal(verifySignedToken(await sign(lease(), 'expired'), keys, RULES));
    expect(late.reason).toBe('certificate-expired');
    expect(late.message).toMatch(/^the signing key expired: x5c\[0\] .* expired at /);
    expect(late.cause).toBeDefined();
    const early = await refusal(verifySignedToken(await sign(lease(), 'future'), keys, RULES));
    expect(early.reason).toBe('certificate-not-yet-valid');
    expect(early.message).toMatch(/^the signing key future: x5c\[0\] .* is not valid before /);
    // Judged a day later (a lease that lasts), the future key is fine.
    const later = { at: T0 + DAY, toleranceMs: TOLERANCE };
    const token = await sign(lease({ iat: S0 + 86_400, exp: S0 + 86_400 + 3600 }), 'future');
    await expect(verifySignedToken(token, keys, later)).resolves.toMatchObject({ ItemA: true });
  });

  it('refuses a signature that does not verify', async () => {
    const [header, payload, signature] = (await sign(lease())).split('.') as [
      string,
      string,
      string,
    ];
    const forged = b64(JSON.stringify(lease({ ItemB: true })));
    for (const token of [
      `${header}.${forged}.${signature}`,
      `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`,
    ]) {
      const error = await refusal(verifySignedToken(token, keys, RULES));
      expect(error.reason).toBe('signature');
      expect(error.message).toBe(
        'the token signature does not verify. Check that the token comes unaltered from the licensing service that issued it, or check the item out again.',
      );
    }
  });

  it('refuses a token whose signature cannot be checked', async () => {
    const trusted = await keys.keyFor(pki.kid, { fetch: false });
    const cause = new Error('engine failure');
    const broken: ServiceKeys = {
      ...keys,
      find: () => ({
        ...trusted,
        verify: async () => {
          throw cause;
        },
      }),
    };
    const error = await refusal(verifySignedToken(await sign(lease()), broken, RULES));
    expect(error.reason).toBe('signature');
    expect(error.message).toBe(
      'the token signature cannot be checked. Check that the token comes unaltered from the licensing service that issued it, or check the item out again.',
    );
    expect(error.cause).toBe(cause);
  });

  it('refuses with reason chain when the date check of a key fails in any other way', async () => {
    const trusted = await keys.keyFor(pki.kid, { fetch: false });
    // A date no certificate can carry: the check's own message cannot be written.
    const odd: ServiceKeys = {
      ...keys,
      find: () => ({
        ...trusted,
        validity: [{ label: 'x5c[0]', subject: 'CN=odd', notBefore: 9e15, notAfter: 9e15 }],
      }),
    };
    const error = await refusal(verifySignedToken(await sign(lease()), odd, RULES));
    expect(error.reason).toBe('chain');
    expect(error.message).toMatch(/^the signing key test-key-1: /);
    expect(error.cause).toBeInstanceOf(RangeError);
  });

  it('refuses a token without a numeric iat: a lease without iat is none', async () => {
    const { iat: _iat, ...noIat } = lease();
    for (const claims of [noIat, lease({ iat: String(S0) }), lease({ iat: null })]) {
      const error = await refusal(verifySignedToken(await sign(claims), keys, RULES));
      expect(error.reason).toBe('malformed');
      expect(error.message).toBe(
        'the token lacks a numeric iat or exp claim. Check that the token comes unaltered from the licensing service that issued it, or check the item out again.',
      );
    }
  });

  it('refuses a token without a numeric exp', async () => {
    const { exp: _exp, ...noExp } = lease();
    for (const claims of [noExp, lease({ exp: String(S0 + 3600) }), lease({ exp: [S0] })]) {
      const error = await refusal(verifySignedToken(await sign(claims), keys, RULES));
      expect(error.reason).toBe('malformed');
    }
  });

  it('refuses times that are no finite number (1e999 reads as Infinity)', async () => {
    for (const text of [
      JSON.stringify(lease()).replace(`"exp":${S0 + 8 * 3600}`, '"exp":1e999'),
      JSON.stringify(lease()).replace(`"iat":${S0}`, '"iat":-1e999'),
    ]) {
      const error = await refusal(verifySignedToken(await sign(text), keys, RULES));
      expect(error.reason).toBe('malformed');
    }
    const nbf = JSON.stringify(lease()).replace('"ItemA":true', '"ItemA":true,"nbf":1e999');
    const error = await refusal(verifySignedToken(await sign(nbf), keys, RULES));
    expect(error.reason).toBe('malformed');
    expect(error.message).toBe(
      'the token has an nbf claim that is not a number. Check that the token comes unaltered from the licensing service that issued it, or check the item out again.',
    );
  });

  it('refuses an nbf that is not a number', async () => {
    for (const nbf of [String(S0), null, true]) {
      const error = await refusal(verifySignedToken(await sign(lease({ nbf })), keys, RULES));
      expect(error.reason).toBe('malformed');
      expect(error.message).toBe(
        'the token has an nbf claim that is not a number. Check that the token comes unaltered from the licensing service that issued it, or check the item out again.',
      );
    }
  });

  it('refuses an expired token, beyond the tolerance only', async () => {
    const edge = lease({ iat: S0 - 8 * 3600, exp: (T0 - TOLERANCE) / 1000 });
    await expect(verifySignedToken(await sign(edge), keys, RULES)).resolves.toEqual(edge);
    const gone = lease({ iat: S0 - 8 * 3600, exp: (T0 - TOLERANCE) / 1000 - 0.001 });
    const error = await refusal(verifySignedToken(await sign(gone), keys, RULES));
    expect(error.reason).toBe('expired');
    expect(error.message).toBe(
      `the token expired at ${new Date(T0 - TOLERANCE - 1).toISOString()} (judged at ${new Date(T0).toISOString()}). Check the item out again; if it was just issued, check the system clock.`,
    );
  });

  it('refuses a token whose nbf is ahead, beyond the tolerance only', async () => {
    const edge = lease({ nbf: (T0 + TOLERANCE) / 1000 });
    await expect(verifySignedToken(await sign(edge), keys, RULES)).resolves.toEqual(edge);
    const ahead = lease({ nbf: (T0 + TOLERANCE) / 1000 + 0.001 });
    const error = await refusal(verifySignedToken(await sign(ahead), keys, RULES));
    expect(error.reason).toBe('not-yet-valid');
    expect(error.message).toBe(
      `the token is not valid before ${new Date(T0 + TOLERANCE + 1).toISOString()} (judged at ${new Date(T0).toISOString()}). Check the system clock.`,
    );
    // An nbf in the past is fine.
    const past = lease({ nbf: S0 - 3600 });
    await expect(verifySignedToken(await sign(past), keys, RULES)).resolves.toEqual(past);
  });

  it('refuses a token issued ahead of the judged time, beyond the tolerance only', async () => {
    const edge = lease({ iat: (T0 + TOLERANCE) / 1000 });
    await expect(verifySignedToken(await sign(edge), keys, RULES)).resolves.toEqual(edge);
    const ahead = lease({ iat: (T0 + TOLERANCE) / 1000 + 0.001 });
    const error = await refusal(verifySignedToken(await sign(ahead), keys, RULES));
    expect(error.reason).toBe('not-yet-valid');
    expect(error.message).toBe(
      `the token was issued at ${new Date(T0 + TOLERANCE + 1).toISOString()}, ahead of ${new Date(T0).toISOString()}. Check the system clock.`,
    );
  });

  it('judges the times at the given time, not the wall clock', async () => {
    const later = lease({ iat: S0 + 100 * 86_400, exp: S0 + 101 * 86_400 });
    const then = { at: T0 + 100.5 * DAY, toleranceMs: 0 };
    await expect(verifySignedToken(await sign(later), keys, then)).resolves.toEqual(later);
    const now = await refusal(verifySignedToken(await sign(later), keys, RULES));
    expect(now.reason).toBe('not-yet-valid');
    const after = { at: T0 + 102 * DAY, toleranceMs: 0 };
    expect((await refusal(verifySignedToken(await sign(later), keys, after))).reason).toBe(
      'expired',
    );
  });
});

describe('verifyLease', () => {
  it('returns the claims of a lease for the item', async () => {
    expect(await verifyLease(await sign(lease()), keys, LEASE_RULES)).toEqual(lease());
  });

  it('refuses a release answer: it names the lease id as item but has no jti and no lic', async () => {
    const release = { ItemSecret: true, iss: 'main', sub: 'user', iat: S0, exp: S0 + 3600 };
    const error = await refusal(
      verifyLease(await sign(release), keys, { ...RULES, item: 'ItemSecret' }),
    );
    expect(error.reason).toBe('not-a-lease');
  });

  it('checks the signature before the claims', async () => {
    const [header, , signature] = (await sign(lease())).split('.') as [string, string, string];
    const unsigned = `${header}.${b64(JSON.stringify({ ItemB: true }))}.${signature}`;
    expect((await refusal(verifyLease(unsigned, keys, LEASE_RULES))).reason).toBe('signature');
  });

  it('refuses a lease for another item and a lease for another device', async () => {
    expect(
      (await refusal(verifyLease(await sign(lease()), keys, { ...RULES, item: 'ItemB' }))).reason,
    ).toBe('item');
    const bound = await sign(lease({ hw: 'pc-1' }));
    expect(
      (await refusal(verifyLease(bound, keys, { ...LEASE_RULES, hardwareId: 'pc-2' }))).reason,
    ).toBe('hardware');
    await expect(
      verifyLease(bound, keys, { ...LEASE_RULES, hardwareId: 'pc-1' }),
    ).resolves.toMatchObject({
      hw: 'pc-1',
    });
  });
});

describe('checkLeaseClaims', () => {
  const claims = (extra: Record<string, unknown> = {}) => lease(extra) as LeaseClaims;
  const check = (value: LeaseClaims, rules: { item: string; hardwareId?: string }) => () =>
    checkLeaseClaims(value, rules);

  it('returns the claims of a lease for the item', () => {
    const value = claims();
    expect(checkLeaseClaims(value, { item: 'ItemA' })).toBe(value);
    expect(checkLeaseClaims(value, { item: 'ItemA', hardwareId: undefined })).toBe(value);
  });

  it('refuses claims that do not grant the item, with the service error code when there is one', async () => {
    for (const value of [
      claims({ ItemA: 'true' }),
      claims({ ItemA: 1 }),
      claims({ ItemA: false }),
    ]) {
      const error = await refusal(check(value, { item: 'ItemA' }));
      expect(error.reason).toBe('item');
      expect(error.message).toBe(
        'the token does not grant ItemA. Check the item name, or check ItemA out to get a lease for it.',
      );
    }
    const denied = await refusal(
      check(claims({ ItemA: undefined, ItemA_errorCode: 'noLicenseFound' }), { item: 'ItemA' }),
    );
    expect(denied.message).toBe(
      'the token does not grant ItemA (noLicenseFound). Check the item name, or check ItemA out to get a lease for it.',
    );
    const odd = await refusal(
      check(claims({ ItemA: undefined, ItemA_errorCode: 4 }), { item: 'ItemA' }),
    );
    expect(odd.message).toBe(
      'the token does not grant ItemA. Check the item name, or check ItemA out to get a lease for it.',
    );
  });

  it('refuses claims without a non-empty string jti or lic', async () => {
    for (const extra of [
      { jti: undefined },
      { jti: '' },
      { jti: 7 },
      { lic: undefined },
      { lic: '' },
      { lic: ['L1'] },
    ]) {
      const error = await refusal(check(claims(extra), { item: 'ItemA' }));
      expect(error.reason).toBe('not-a-lease');
      expect(error.message).toBe(
        "the token grants ItemA but is not a lease: it lacks a lease id (jti) or a license id (lic). Pass a lease's token (from checkout or renew), not a release answer.",
      );
    }
  });

  it('refuses a lease bound to another device, or to none, when the client has a hardware id', async () => {
    const other = await refusal(
      check(claims({ hw: 'pc-1' }), { item: 'ItemA', hardwareId: 'pc-2' }),
    );
    expect(other.reason).toBe('hardware');
    expect(other.message).toBe(
      'the lease is bound to another device (hw "pc-1", this device "pc-2"). Check the item out on this device; if the device\'s id changed, check hardwareId (machineId).',
    );
    const none = await refusal(check(claims(), { item: 'ItemA', hardwareId: 'pc-2' }));
    expect(none.message).toBe(
      'the lease is bound to another device (hw absent, this device "pc-2"). Check the item out on this device; if the device\'s id changed, check hardwareId (machineId).',
    );
    const empty = await refusal(check(claims({ hw: '' }), { item: 'ItemA', hardwareId: 'pc-2' }));
    expect(empty.reason).toBe('hardware');
    // Without a hardware id, any device's lease is this client's.
    expect(checkLeaseClaims(claims({ hw: 'pc-1' }), { item: 'ItemA' })).toMatchObject({
      hw: 'pc-1',
    });
  });
});

describe('soleGrantedItem', () => {
  it('names the one item a token grants', () => {
    expect(soleGrantedItem(lease({ ItemA: true, other: 'true', flag: 1 }) as LeaseClaims)).toBe(
      'ItemA',
    );
  });

  it('refuses a token that grants none or several', async () => {
    const none = await refusal(() => soleGrantedItem(lease({ ItemA: 'yes' }) as LeaseClaims));
    expect(none.reason).toBe('item');
    expect(none.message).toBe(
      'the token grants 0 items, a lease exactly one. Pass the item to check (options.item).',
    );
    const two = await refusal(() => soleGrantedItem(lease({ ItemB: true }) as LeaseClaims));
    expect(two.message).toMatch(/^the token grants 2 items/);
  });
});
