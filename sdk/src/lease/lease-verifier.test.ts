import { AsnParser } from '@peculiar/asn1-schema';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createTestPki,
  createTestRoot,
  createTestSigningKey,
  type TestPki,
  type TestSigningKey,
} from '../../test/helpers/test-pki.js';
import { x509 } from '../../test/helpers/x509.js';
import {
  createLeaseVerifier,
  type JwkSet,
  type LeaseVerifierOptions,
  type TrustedRoot,
} from './lease-verifier.js';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
const now = () => T0;

let pki: TestPki;
let foreign: TestSigningKey;
let otherUnderRoot: TestSigningKey;
let expired: TestSigningKey;
let notYetValid: TestSigningKey;
let underIntermediate: TestSigningKey;
let underNonCa: TestSigningKey;
let underNoKeyCertSign: TestSigningKey;

beforeAll(async () => {
  pki = await createTestPki({ now });
  const keys = pki.signingKey.keys;
  const otherRoot = await createTestRoot({ now });
  foreign = await createTestSigningKey(otherRoot, { now, kid: 'foreign', keys });
  otherUnderRoot = await pki.createSigningKey({ kid: 'other' });
  expired = await pki.createSigningKey({
    kid: 'expired',
    keys,
    notBefore: new Date(T0 - 10 * DAY),
    notAfter: new Date(T0 - DAY),
  });
  notYetValid = await pki.createSigningKey({
    kid: 'future',
    keys,
    notBefore: new Date(T0 + DAY),
    notAfter: new Date(T0 + 10 * DAY),
  });
  const intermediate = await pki.createIntermediate();
  underIntermediate = await pki.createSigningKey({ kid: 'inter', keys, issuer: intermediate });
  const nonCa = await pki.createIntermediate({ ca: false });
  underNonCa = await pki.createSigningKey({ kid: 'non-ca', keys, issuer: nonCa });
  const noKeyCertSign = await pki.createIntermediate({
    keyUsage: x509.KeyUsageFlags.digitalSignature,
  });
  underNoKeyCertSign = await pki.createSigningKey({
    kid: 'no-cert-sign',
    keys,
    issuer: noKeyCertSign,
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function setup(jwks: JwkSet = pki.jwks, options: Partial<LeaseVerifierOptions> = {}) {
  const loadJwks = vi.fn(async (_service: 'main' | 'standby', _signal?: AbortSignal) => jwks);
  const verifier = createLeaseVerifier({ roots: [pki.trustedRoot], loadJwks, now, ...options });
  return { verifier, loadJwks };
}

const jwksOf = (...keys: TestSigningKey[]): JwkSet => ({ keys: keys.map((key) => key.jwk) });
const lease = (extra: Record<string, unknown> = {}) => ({
  ItemA: true,
  lic: 'L1',
  jti: 'J1',
  ...extra,
});

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'expected a rejection').toBeDefined();
  return error as { code: string; reason?: string; message: string; cause?: unknown };
}

describe('createLeaseVerifier', () => {
  it('verifies a valid lease and returns its claims', async () => {
    const { verifier, loadJwks } = setup();
    const token = await pki.signLease(lease());
    const claims = await verifier.verify(token, { service: 'standby', item: 'ItemA' });
    expect(claims).toMatchObject({ ItemA: true, lic: 'L1', jti: 'J1', iat: T0 / 1000 });
    expect(loadJwks).toHaveBeenCalledWith('standby', expect.any(AbortSignal));
  });

  it('verifies a chain through an intermediate, and one that ends below the root', async () => {
    const { verifier } = setup(jwksOf(underIntermediate));
    const token = await underIntermediate.sign(lease());
    await expect(verifier.verify(token, { service: 'main' })).resolves.toMatchObject({ lic: 'L1' });

    const withoutRoot = { ...underIntermediate.jwk, x5c: underIntermediate.jwk.x5c.slice(0, 2) };
    const { verifier: second } = setup({ keys: [withoutRoot] });
    await expect(second.verify(token, { service: 'main' })).resolves.toMatchObject({ lic: 'L1' });
  });

  it('refuses a token whose chain leads to another root', async () => {
    const { verifier } = setup(jwksOf(foreign));
    const error = await refusal(verifier.verify(await foreign.sign(lease()), { service: 'main' }));
    expect(error.code).toBe('TOKEN_INVALID');
    expect(error.reason).toBe('chain');
    expect(error.message).toMatch(/neither an embedded root nor signed by one/);
  });

  it('refuses an x5c whose modulus differs from the JWK n', async () => {
    const mixed = { ...pki.signingKey.jwk, kid: 'mixed', x5c: otherUnderRoot.jwk.x5c };
    const { verifier } = setup({ keys: [mixed] });
    const token = await pki.signLease(lease(), { kid: 'mixed' });
    const error = await refusal(verifier.verify(token, { service: 'standby' }));
    expect(error.code).toBe('TOKEN_INVALID');
    expect(error.reason).toBe('modulus');
    expect(error.message).toMatch(/modulus/);
  });

  it('refuses a tampered payload and a tampered signature', async () => {
    const { verifier } = setup();
    const [header, payload, signature] = (await pki.signLease(lease())).split('.') as [
      string,
      string,
      string,
    ];
    const forged = Buffer.from(
      JSON.stringify({ ...lease(), ItemB: true, iat: T0 / 1000, exp: T0 / 1000 + 3600 }),
    ).toString('base64url');
    const tamperedPayload = `${header}.${forged}.${signature}`;
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const tamperedSignature = `${header}.${payload}.${flipped}`;
    for (const token of [tamperedPayload, tamperedSignature]) {
      const error = await refusal(verifier.verify(token, { service: 'main' }));
      expect(error.code).toBe('TOKEN_INVALID');
      expect(error.reason).toBe('signature');
    }
    await expect(
      verifier.verify(`${header}.${payload}.${signature}`, { service: 'main' }),
    ).resolves.toBeDefined();
  });

  it('refuses alg none and HS256 before touching any key', async () => {
    const { verifier, loadJwks } = setup();
    for (const alg of ['none', 'HS256'] as const) {
      const token = await pki.signLease(lease(), { alg });
      const error = await refusal(verifier.verify(token, { service: 'main' }));
      expect(error.code).toBe('TOKEN_INVALID');
      expect(error.reason).toBe('alg');
      expect(error.message).toMatch(/only RS256/);
    }
    expect(loadJwks).not.toHaveBeenCalled();
  });

  it('refuses a token without kid and malformed input', async () => {
    const { verifier, loadJwks } = setup();
    const noKid = await pki.signLease(lease(), { kid: null });
    for (const token of [noKid, 'abc', 'a.b', 42 as unknown as string]) {
      const error = await refusal(verifier.verify(token, { service: 'main' }));
      expect(error.code).toBe('TOKEN_INVALID');
      expect(error.reason).toBe('malformed');
    }
    expect(loadJwks).not.toHaveBeenCalled();
  });

  it('refetches once on an unknown kid, then refuses; a cooldown stops repeated refetches', async () => {
    let time = T0;
    const { verifier, loadJwks } = setup(pki.jwks, { now: () => time });
    await verifier.verify(await pki.signLease(lease()), { service: 'standby' });
    expect(loadJwks).toHaveBeenCalledTimes(1);

    const unknown = await pki.signLease(lease(), { kid: 'nope' });
    const error = await refusal(verifier.verify(unknown, { service: 'standby' }));
    expect(error.code).toBe('TOKEN_INVALID');
    expect(error.reason).toBe('kid');
    expect(loadJwks).toHaveBeenCalledTimes(2);

    await refusal(verifier.verify(unknown, { service: 'standby' }));
    expect(loadJwks).toHaveBeenCalledTimes(2);
    time = T0 + 30_000;
    await refusal(verifier.verify(unknown, { service: 'standby' }));
    expect(loadJwks).toHaveBeenCalledTimes(3);
  });

  it('shares one refetch among concurrent verifies and finds a newly published key', async () => {
    let jwks = pki.jwks;
    let release!: () => void;
    const loadJwks = vi.fn(async () => {
      if (loadJwks.mock.calls.length > 1) await new Promise<void>((resolve) => (release = resolve));
      return jwks;
    });
    const verifier = createLeaseVerifier({ roots: [pki.trustedRoot], loadJwks, now });
    await verifier.verify(await pki.signLease(lease()), { service: 'main' });

    jwks = jwksOf(pki.signingKey, otherUnderRoot);
    const token = await otherUnderRoot.sign(lease());
    const pending = [1, 2, 3].map(() => verifier.verify(token, { service: 'main' }));
    await vi.waitFor(() => expect(release).toBeTypeOf('function'));
    release();
    await expect(Promise.all(pending)).resolves.toHaveLength(3);
    expect(loadJwks).toHaveBeenCalledTimes(2);
  });

  it('keeps the last good JWK set when a refetch fails', async () => {
    const { verifier, loadJwks } = setup();
    const good = await pki.signLease(lease());
    await verifier.verify(good, { service: 'main' });
    const outage = new Error('JWKS endpoint unreachable');
    loadJwks.mockRejectedValue(outage);

    // DECISIONS.md: a JWKS load failure is an outage of that service, never TOKEN_INVALID: the
    // loader's own error comes back unchanged, for the failover loop to classify.
    const error = await refusal(
      verifier.verify(await pki.signLease(lease(), { kid: 'nope' }), { service: 'main' }),
    );
    expect(error).toBe(outage);
    await expect(verifier.verify(good, { service: 'main' })).resolves.toMatchObject({ lic: 'L1' });
    expect(loadJwks).toHaveBeenCalledTimes(2);
  });

  it('refuses when the JWK set cannot be loaded at all, and caches per service', async () => {
    const outage = new Error('dormant');
    const loadJwks = vi.fn(async (service: 'main' | 'standby') => {
      if (service === 'standby') throw outage;
      return pki.jwks;
    });
    const verifier = createLeaseVerifier({ roots: [pki.trustedRoot], loadJwks, now });
    const token = await pki.signLease(lease());
    const error = await refusal(verifier.verify(token, { service: 'standby' }));
    expect(error).toBe(outage);
    await verifier.verify(token, { service: 'main' });
    await verifier.verify(token, { service: 'main' });
    expect(loadJwks.mock.calls.map(([service]) => service)).toEqual(['standby', 'main']);
  });

  it('lets a corrected JWKS in after a bad answer: refetch of a refused kid after the cooldown', async () => {
    // Regression: the first JWKS answer published the kid with a foreign chain; the cache kept
    // that kid refused for the life of the client, even once the JWKS was correct again.
    let time = T0;
    let jwks: JwkSet = { keys: [{ ...foreign.jwk, kid: pki.kid }] };
    const loadJwks = vi.fn(async () => jwks);
    const verifier = createLeaseVerifier({
      roots: [pki.trustedRoot],
      loadJwks,
      now: () => time,
    });
    const token = await pki.signLease(lease());
    expect(await refusal(verifier.verify(token, { service: 'standby' }))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'chain',
    });

    jwks = pki.jwks;
    // Within the cooldown the refusal stands without another fetch (no hammering)...
    time += 29_999;
    expect((await refusal(verifier.verify(token, { service: 'standby' }))).reason).toBe('chain');
    expect(loadJwks).toHaveBeenCalledTimes(1);
    // ...after it, the kid is fetched again and the good key is trusted.
    time += 1;
    await expect(verifier.verify(token, { service: 'standby' })).resolves.toMatchObject({
      lic: 'L1',
    });
    expect(loadJwks).toHaveBeenCalledTimes(2);
  });

  it('fetches once per cooldown whatever the kid: a refused kid and another both wait for it', async () => {
    let at = T0;
    let jwks: JwkSet = { keys: [{ ...foreign.jwk, kid: pki.kid }] };
    const loadJwks = vi.fn(async () => jwks);
    const verifier = createLeaseVerifier({
      roots: [pki.trustedRoot],
      loadJwks,
      now: () => at,
      unknownKidCooldownMs: 30_000,
    });
    const token = await pki.signLease(lease());
    expect((await refusal(verifier.verify(token, { service: 'main' }))).reason).toBe('chain');

    // Within the cooldown another kid is refused without a fetch, however new it is.
    jwks = jwksOf(pki.signingKey, otherUnderRoot);
    const other = await otherUnderRoot.sign(lease());
    expect((await refusal(verifier.verify(other, { service: 'main' }))).reason).toBe('kid');
    expect(loadJwks).toHaveBeenCalledTimes(1);

    // Once it has passed, one fetch brings the corrected set; the refused kid is judged on it.
    at += 30_000;
    await expect(verifier.verify(other, { service: 'main' })).resolves.toMatchObject({ lic: 'L1' });
    await expect(verifier.verify(token, { service: 'main' })).resolves.toMatchObject({ lic: 'L1' });
    expect(loadJwks).toHaveBeenCalledTimes(2);
  });

  it('trusts no key of a fetched set before its own chain verified', async () => {
    // One set with a bad key and a good one: the bad one is refused, the good one trusted.
    const bad = { ...foreign.jwk, kid: 'bad' };
    const { verifier, loadJwks } = setup({ keys: [bad, pki.signingKey.jwk] });
    const badToken = await foreign.sign(lease(), { kid: 'bad' });
    expect((await refusal(verifier.verify(badToken, { service: 'main' }))).reason).toBe('chain');
    const good = await pki.signLease(lease());
    await expect(verifier.verify(good, { service: 'main' })).resolves.toMatchObject({ lic: 'L1' });
    expect(loadJwks).toHaveBeenCalledTimes(1);
  });

  it('refuses an expired lease and accepts one within the clock tolerance', async () => {
    const { verifier } = setup();
    const at = T0 / 1000;
    const late = await pki.signLease(lease({ iat: at - 8 * 3600, exp: at - 61 }));
    expect(await refusal(verifier.verify(late, { service: 'main' }))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'expired',
    });
    const withinTolerance = await pki.signLease(lease({ iat: at - 8 * 3600, exp: at - 30 }));
    await expect(verifier.verify(withinTolerance, { service: 'main' })).resolves.toBeDefined();

    const early = await pki.signLease(lease({ iat: at + 120, exp: at + 8 * 3600 }));
    expect(await refusal(verifier.verify(early, { service: 'main' }))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'not-yet-valid',
    });
    const slightlyEarly = await pki.signLease(lease({ iat: at + 30, exp: at + 8 * 3600 }));
    await expect(verifier.verify(slightlyEarly, { service: 'main' })).resolves.toBeDefined();

    const noExp = await pki.signLease({ ItemA: true, iat: at, exp: undefined });
    expect(await refusal(verifier.verify(noExp, { service: 'main' }))).toMatchObject({
      code: 'TOKEN_INVALID',
      reason: 'malformed',
    });
  });

  it('refuses an expired and a not-yet-valid certificate', async () => {
    const { verifier } = setup(jwksOf(expired, notYetValid));
    for (const key of [expired, notYetValid]) {
      const error = await refusal(verifier.verify(await key.sign(lease()), { service: 'main' }));
      expect(error.code).toBe('TOKEN_INVALID');
      expect(error.reason).toBe(
        key === expired ? 'certificate-expired' : 'certificate-not-yet-valid',
      );
      expect(error.message).toMatch(key === expired ? /expired at/ : /not valid before/);
    }
  });

  it('refuses a certificate once it expires, even with the chain result cached', async () => {
    let time = T0;
    const { verifier } = setup(pki.jwks, { now: () => time });
    await verifier.verify(await pki.signLease(lease()), { service: 'main' });
    time = pki.signingKey.cert.notAfter.getTime() + 61_000;
    const later = await pki.signLease(lease({ iat: time / 1000 - 10, exp: time / 1000 + 3600 }));
    const error = await refusal(verifier.verify(later, { service: 'main' }));
    expect(error.reason).toBe('certificate-expired');
    expect(error.message).toMatch(/expired at/);
  });

  it('refuses an issuer without the CA flag or without keyCertSign', async () => {
    const { verifier } = setup(jwksOf(underNonCa, underNoKeyCertSign));
    const notCa = await refusal(
      verifier.verify(await underNonCa.sign(lease()), { service: 'main' }),
    );
    expect(notCa).toMatchObject({ code: 'TOKEN_INVALID', reason: 'chain' });
    expect(notCa.message).toMatch(/is not a CA/);
    const noCertSign = await refusal(
      verifier.verify(await underNoKeyCertSign.sign(lease()), { service: 'main' }),
    );
    expect(noCertSign.message).toMatch(/keyCertSign/);
  });

  it('refuses a lease without the requested item claim', async () => {
    const { verifier } = setup();
    const denied = await pki.signLease({ ItemB_errorCode: 'noLicenseFound', lic: 'L1' });
    const error = await refusal(verifier.verify(denied, { service: 'main', item: 'ItemB' }));
    expect(error.code).toBe('TOKEN_INVALID');
    expect(error.reason).toBe('item');
    expect(error.message).toMatch(/noLicenseFound/);
    const stringTrue = await pki.signLease({ ItemB: 'true' });
    expect(
      (await refusal(verifier.verify(stringTrue, { service: 'main', item: 'ItemB' }))).code,
    ).toBe('TOKEN_INVALID');
  });

  it('does no JWKS fetch, chain validation or key import in steady state', async () => {
    const { verifier, loadJwks } = setup();
    const token = await pki.signLease(lease());
    // Chain validation = parsing certificates (AsnParser, internal/certificate.ts) and checking
    // their signatures with WebCrypto's verify, on keys it imports.
    const certificateParses = vi.spyOn(AsnParser, 'fromASN');
    const chainChecks = vi.spyOn(globalThis.crypto.subtle, 'verify');
    const imports = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    // On Node the signature check goes through node:crypto (internal/platform/rs256-verifier.ts).
    const nodeCrypto = process.getBuiltinModule('node:crypto');
    const nodeImports = vi.spyOn(nodeCrypto, 'createPublicKey');
    const rsaVerifies = vi.spyOn(nodeCrypto, 'verify');
    // The first use validates the chain: the spies see it, so their silence below means something.
    await verifier.verify(token, { service: 'standby', item: 'ItemA' });
    expect(certificateParses).toHaveBeenCalled();
    expect(chainChecks).toHaveBeenCalled();
    expect(imports).toHaveBeenCalled();
    expect(loadJwks).toHaveBeenCalledTimes(1);
    vi.clearAllMocks();

    for (let i = 0; i < 5; i++) await verifier.verify(token, { service: 'standby', item: 'ItemA' });
    expect(loadJwks).not.toHaveBeenCalled();
    expect(certificateParses).not.toHaveBeenCalled();
    expect(chainChecks).not.toHaveBeenCalled();
    expect(imports).not.toHaveBeenCalled();
    expect(nodeImports).not.toHaveBeenCalled();
    expect(rsaVerifies).toHaveBeenCalledTimes(5);
  });

  it('checks a republished JWK of a kid again, and never lets a bad one replace the trusted one', async () => {
    let jwks = pki.jwks;
    let time = T0;
    const verifier = createLeaseVerifier({
      roots: [pki.trustedRoot],
      loadJwks: async () => jwks,
      now: () => time,
    });
    await verifier.verify(await pki.signLease(lease()), { service: 'main' });
    // The service now publishes a different key under a new kid and the old kid with a foreign chain.
    jwks = { keys: [{ ...foreign.jwk, kid: pki.kid }, otherUnderRoot.jwk] };
    time += 1000;
    await verifier.verify(await otherUnderRoot.sign(lease()), { service: 'main' });
    // The republished JWK failed its check, so it never replaced the trusted one: a bad JWKS
    // answer takes no trusted key away (DECISIONS "Lease trust": key sets).
    await expect(
      verifier.verify(await pki.signLease(lease()), { service: 'main' }),
    ).resolves.toMatchObject({ ItemA: true });
  });

  it('pins: an app embedding only the old root verifies old-key leases, not the new default', async () => {
    const newRootKey = foreign;
    const { verifier } = setup(jwksOf(newRootKey, pki.signingKey));
    await expect(
      verifier.verify(await pki.signLease(lease()), { service: 'standby' }),
    ).resolves.toBeDefined();
    const error = await refusal(
      verifier.verify(await newRootKey.sign(lease()), { service: 'standby' }),
    );
    expect(error.code).toBe('TOKEN_INVALID');
  });

  it('rejects invalid roots with INVALID_ARGUMENT at creation', () => {
    const loadJwks = async () => pki.jwks;
    const bad: TrustedRoot[][] = [
      [],
      [{ pem: 'not a pem' }],
      [{ pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }],
      [{ pem: pki.rootPem }, { pem: 42 as unknown as string }],
    ];
    for (const roots of bad) {
      expect(() => createLeaseVerifier({ roots, loadJwks })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
    // CRLF and surrounding text are fine.
    const crlf = `# embedded root\r\n${pki.rootPem.replace(/\n/g, '\r\n')}`;
    expect(() => createLeaseVerifier({ roots: [{ pem: crlf }], loadJwks })).not.toThrow();
  });

  it('warns once per root within 90 days of expiry', async () => {
    const notAfter = pki.root.cert.notAfter.getTime();
    let time = notAfter - 91 * DAY;
    const onRootExpiring = vi.fn();
    const verifier = createLeaseVerifier({
      roots: [pki.trustedRoot, { pem: pki.rootPem }],
      loadJwks: async () => pki.jwks,
      now: () => time,
      onRootExpiring,
    });
    expect(onRootExpiring).not.toHaveBeenCalled();
    time = notAfter - 30 * DAY - 1000;
    const token = await pki.signLease(lease({ iat: time / 1000, exp: time / 1000 + 3600 }));
    await verifier.verify(token, { service: 'main' });
    await verifier.verify(token, { service: 'main' });
    expect(onRootExpiring).toHaveBeenCalledTimes(2);
    expect(onRootExpiring).toHaveBeenNthCalledWith(1, {
      keyId: pki.kid,
      notAfter: new Date(notAfter),
      daysLeft: 30,
    });
    expect(onRootExpiring.mock.calls[1]![0]).not.toHaveProperty('keyId');
  });

  it('rejects with the abort reason when the signal aborts while the JWK set loads', async () => {
    let loaded = (_jwks: JwkSet) => {};
    const loadJwks = vi.fn(
      (_service: 'main' | 'standby', _signal?: AbortSignal) =>
        new Promise<JwkSet>((resolve) => {
          loaded = resolve;
        }),
    );
    const verifier = createLeaseVerifier({ roots: [pki.trustedRoot], loadJwks, now });
    const controller = new AbortController();
    const reason = new Error('stop');
    const verifying = verifier.verify(await pki.signLease(lease()), {
      service: 'main',
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(loadJwks).toHaveBeenCalledTimes(1));
    controller.abort(reason);
    await expect(verifying).rejects.toBe(reason);
    // The load goes on: its keys serve the next verify.
    loaded(pki.jwks);
    await expect(
      verifier.verify(await pki.signLease(lease()), { service: 'main' }),
    ).resolves.toMatchObject({ lic: 'L1' });
    expect(loadJwks).toHaveBeenCalledTimes(1);
  });

  it('rejects with the abort reason when the signal is aborted', async () => {
    const { verifier } = setup();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      verifier.verify(await pki.signLease(lease()), { service: 'main', signal: controller.signal }),
    ).rejects.toThrow('stop');
  });
});
