// The spec's authenticity check of a signing key, with real keys and certificates: an RSA
// signing JWK, its x5c chain to an embedded root, and x5c[0] carrying the JWK's n and e.

import { base64url } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestPki, createTestRoot, type TestPki } from '../../test/helpers/test-pki.js';
import { x509 } from '../../test/helpers/x509.js';
import { TokenInvalidError } from '../errors.js';
import { encodeBase64 } from '../internal/base64.js';
import { parseCertificate } from '../internal/certificate.js';
import type { TrustAnchor } from './certificate-chain.js';
import { jwkFingerprint, verifySigningKey } from './signing-key-check.js';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;
const now = () => T0;

let pki: TestPki;
let anchors: TrustAnchor[];
let otherAnchor: TrustAnchor;
let otherRootPem: string;
/** A certificate under the root for an EC key: x5c[0] that is no RSA key. */
let ecLeaf: string;

const anchorOf = (pem: string): TrustAnchor => {
  const cert = parseCertificate(new x509.X509Certificate(pem).rawData);
  return { cert, der: cert.der };
};

beforeAll(async () => {
  pki = await createTestPki({ now });
  otherRootPem = (await createTestRoot({ now, name: 'Other Root' })).pem;
  const ecKeys = (await globalThis.crypto.subtle.generateKey(
    { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=EC signing',
    issuer: pki.root.cert.subject,
    publicKey: ecKeys.publicKey,
    signingKey: pki.root.keys.privateKey,
    notBefore: new Date(T0 - DAY),
    notAfter: new Date(T0 + DAY),
  });
  ecLeaf = encodeBase64(cert.rawData);
});

// Parsed for each test (not once for all), so each test's coverage includes what it runs.
beforeEach(() => {
  anchors = [anchorOf(pki.rootPem)];
  otherAnchor = anchorOf(otherRootPem);
});

const jwk = (extra: Record<string, unknown> = {}) => ({ ...pki.signingKey.jwk, ...extra });

async function refusal(promise: Promise<unknown>): Promise<TokenInvalidError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TokenInvalidError);
  return error as TokenInvalidError;
}

/** Base64url of `value`'s bytes with `zeros` leading zero bytes. */
function withLeadingZeros(value: string, zeros: number): string {
  const bytes = base64url.decode(value);
  return base64url.encode(new Uint8Array([...new Array(zeros).fill(0), ...bytes]));
}

describe('verifySigningKey', () => {
  it('trusts a key whose chain leads to an embedded root: its verify and its certificate dates', async () => {
    const key = await verifySigningKey(jwk(), pki.kid, anchors);
    const token = await pki.signLease({ ItemA: true });
    const [header, payload, signaturePart] = token.split('.') as [string, string, string];
    const signature = new Uint8Array(Buffer.from(signaturePart, 'base64url'));
    const input = new TextEncoder().encode(`${header}.${payload}`);
    expect(await key.verify(input, signature)).toBe(true);
    expect(await key.verify(new TextEncoder().encode(`${header}.${header}`), signature)).toBe(
      false,
    );
    expect(key.validity.map((entry) => entry.label)).toEqual(['x5c[0]', 'embedded root']);
    expect(key.validity[0]).toMatchObject({
      notBefore: T0 - DAY,
      subject: `CN=Lease signing ${pki.kid}`,
    });
  });

  it('accepts a JWK without alg or use, and with alg RS256 and use sig', async () => {
    const { alg: _alg, use: _use, ...bare } = jwk();
    await expect(verifySigningKey(bare, pki.kid, anchors)).resolves.toBeDefined();
    await expect(
      verifySigningKey(jwk({ alg: 'RS256', use: 'sig' }), pki.kid, anchors),
    ).resolves.toBeDefined();
  });

  it('refuses a JWK that is not RSA', async () => {
    for (const kty of ['EC', 'oct', undefined, 'rsa']) {
      const error = await refusal(verifySigningKey(jwk({ kty }), 'k1', anchors));
      expect(error.reason).toBe('key');
      expect(error.message).toMatch(/the JWK of kid k1 is not an RSA key/);
    }
  });

  it('says which option to check, by the service the key came from', async () => {
    const advice = (option: string) =>
      `the JWK of kid k1 is not an RSA key. Check that ${option} is a licensing service: it must publish RS256 signing keys with their certificate chain.`;
    const odd = jwk({ kty: 'EC' });
    expect((await refusal(verifySigningKey(odd, 'k1', anchors))).message).toBe(
      advice('the URL the key set comes from'),
    );
    const main = await refusal(verifySigningKey(odd, 'k1', anchors, { service: 'main' }));
    expect(main.message).toBe(advice('mainUrl'));
    const standby = await refusal(verifySigningKey(odd, 'k1', anchors, { service: 'standby' }));
    expect(standby.message).toBe(advice('standbyUrl'));
  });

  it('refuses a JWK for another alg', async () => {
    for (const alg of ['RS384', 'PS256', 'ES256', 'none', '']) {
      const error = await refusal(verifySigningKey(jwk({ alg }), 'k1', anchors));
      expect(error.reason).toBe('key');
      expect(error.message).toContain(`is for alg ${alg}, not RS256`);
    }
  });

  it('refuses a JWK for another use', async () => {
    for (const use of ['enc', 'SIG', '']) {
      const error = await refusal(verifySigningKey(jwk({ use }), 'k1', anchors));
      expect(error.reason).toBe('key');
      expect(error.message).toContain(`has use ${use}, not sig`);
    }
  });

  it('refuses a JWK without string n and e', async () => {
    for (const extra of [{ n: undefined }, { e: undefined }, { n: 7 }, { e: ['AQAB'] }]) {
      const error = await refusal(verifySigningKey(jwk(extra), 'k1', anchors));
      expect(error.reason).toBe('key');
      expect(error.message).toMatch(/lacks n or e/);
    }
  });

  it('refuses a JWK whose n or e is not base64url', async () => {
    for (const extra of [{ n: '*not base64*' }, { e: 'AQ*B' }]) {
      const error = await refusal(verifySigningKey(jwk(extra), 'k1', anchors));
      expect(error.reason).toBe('key');
      expect(error.message).toMatch(/has malformed n or e/);
      expect(error.cause).toBeDefined();
    }
  });

  it('compares n and e as integers: leading zero bytes change nothing', async () => {
    const padded = jwk({
      n: withLeadingZeros(pki.signingKey.jwk.n, 1),
      e: withLeadingZeros('AQAB', 3),
    });
    await expect(verifySigningKey(padded, pki.kid, anchors)).resolves.toBeDefined();
    const twice = jwk({ n: withLeadingZeros(pki.signingKey.jwk.n, 2) });
    await expect(verifySigningKey(twice, pki.kid, anchors)).resolves.toBeDefined();
  });

  it('refuses a JWK whose exponent differs from x5c[0]', async () => {
    for (const e of ['Aw', 'AQAA', 'AQAC', 'AA']) {
      const error = await refusal(verifySigningKey(jwk({ e }), 'k1', anchors));
      expect(error.reason).toBe('modulus');
      expect(error.message).toMatch(
        /modulus or exponent of x5c\[0\] differs from the JWK n\/e of kid k1/,
      );
    }
  });

  it('refuses a JWK whose modulus differs from x5c[0], also by a trailing zero byte', async () => {
    const bytes = base64url.decode(pki.signingKey.jwk.n);
    const flipped = new Uint8Array(bytes);
    flipped[flipped.length - 1]! ^= 1;
    const longer = new Uint8Array([...bytes, 0]);
    for (const n of [base64url.encode(flipped), base64url.encode(longer), 'AA']) {
      const error = await refusal(verifySigningKey(jwk({ n }), 'k1', anchors));
      expect(error.reason).toBe('modulus');
    }
  });

  it('refuses a chain that leads to no embedded root, naming the service, the roots and the fix', async () => {
    const error = await refusal(
      verifySigningKey(jwk(), 'k1', [otherAnchor], { service: 'standby' }),
    );
    expect(error.reason).toBe('chain');
    expect(error.message).toMatch(
      /^the standby service's signing key k1 cannot be trusted: the chain ends at .*neither an embedded root nor signed by one\. The app embeds 1 root\(s\): CN=Other Root\. Embed the root certificate of the service's current signing key \(npx standby-licensing embed-root --help\)\.$/,
    );
    expect(error.cause).toBeDefined();
    const two = await refusal(
      verifySigningKey(jwk(), 'k1', [otherAnchor, otherAnchor], { embedHint: 'Run make-roots.' }),
    );
    expect(two.message).toMatch(
      /^signing key k1 cannot be trusted: .* The app embeds 2 root\(s\): CN=Other Root; CN=Other Root\. Run make-roots\.$/,
    );
  });

  it('refuses a JWK without x5c as a chain failure', async () => {
    const error = await refusal(verifySigningKey(jwk({ x5c: undefined }), 'k1', anchors));
    expect(error.reason).toBe('chain');
    expect(error.message).toMatch(/no x5c certificate chain/);
  });

  it('refuses an x5c[0] that holds no RSA key', async () => {
    const x5c = [ecLeaf, ...pki.signingKey.jwk.x5c.slice(1)];
    const error = await refusal(verifySigningKey(jwk({ x5c }), 'k1', anchors));
    expect(error.reason).toBe('key');
    expect(error.message).toMatch(/x5c\[0\] of kid k1 is not an RSA public key/);
    expect(error.cause).toBeDefined();
  });
});

describe('jwkFingerprint', () => {
  it('changes with kty, n, e and x5c, and with nothing else', () => {
    const base = jwkFingerprint(jwk());
    expect(jwkFingerprint(jwk({ kid: 'other', alg: 'RS512', use: 'enc' }))).toBe(base);
    for (const change of [{ kty: 'EC' }, { n: 'AQAB' }, { e: 'Aw' }, { x5c: [] }]) {
      expect(jwkFingerprint(jwk(change))).not.toBe(base);
    }
  });
});
