// The fake services' throwaway PKI: a root and a lease-signing key for main, the same for the
// standby, and the ID-token issuer's key. Made with WebCrypto on first use and shared by every
// fake of the process (or page), so a suite pays for five RSA keys once. Private to the kit.
import { encodeBase64 } from '../../internal/base64.js';
import { formatPem } from '../../internal/pem.js';
import { writeCertificate } from './write-certificate.js';

const RSA: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

/**
 * Validity of every certificate: wide enough for any clock a test injects (`now` in 2030, or a
 * lease store from years ago), as a throwaway test root may be.
 */
const NOT_BEFORE = new Date(Date.UTC(2000, 0, 1));
const NOT_AFTER = new Date(Date.UTC(2100, 0, 1));

/** A JWK as the services publish it, with its certificate chain. */
export interface FakeJwk {
  kty: 'RSA';
  kid: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
  /** `[signing certificate, root certificate]`, standard base64 DER. */
  x5c: string[];
}

/** One service's keys: its root (what an app embeds) and its lease-signing key. */
export interface FakeServicePki {
  kid: string;
  privateKey: CryptoKey;
  jwk: FakeJwk;
  /** The signing certificate, PEM. */
  certificatePem: string;
  /** The root certificate, PEM. */
  rootPem: string;
  /** The signing key's public key as SPKI PEM (what a ServiceKeyHash is computed from). */
  publicKeyPem: string;
}

/** The ID-token issuer's key. */
export interface FakeIdpPki {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public JWK (`kty`, `kid`, `use`, `alg`, `n`, `e`). */
  jwk: Omit<FakeJwk, 'x5c'>;
}

/** Every key of the fakes. */
export interface FakePki {
  main: FakeServicePki;
  standby: FakeServicePki;
  idp: FakeIdpPki;
}

function generateKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(RSA, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function publicJwk(key: CryptoKey): Promise<{ n: string; e: string }> {
  const { n, e } = await crypto.subtle.exportKey('jwk', key);
  return { n: n!, e: e! };
}

async function servicePki(service: 'main' | 'standby', kid: string): Promise<FakeServicePki> {
  const label = service === 'main' ? 'Main' : 'Standby';
  const [rootKeys, signingKeys] = await Promise.all([generateKeys(), generateKeys()]);
  const rootName = `Fake ${label} Licensing Root`;
  const validity = { notBefore: NOT_BEFORE, notAfter: NOT_AFTER };
  const [root, signing, spki, { n, e }] = await Promise.all([
    writeCertificate({ subject: rootName, keys: rootKeys, ca: true, ...validity }),
    writeCertificate({
      subject: `Fake ${label} Lease Signing ${kid}`,
      issuer: { name: rootName, privateKey: rootKeys.privateKey },
      keys: signingKeys,
      ca: false,
      ...validity,
    }),
    crypto.subtle.exportKey('spki', signingKeys.publicKey),
    publicJwk(signingKeys.publicKey),
  ]);
  return {
    kid,
    privateKey: signingKeys.privateKey,
    jwk: {
      kty: 'RSA',
      kid,
      use: 'sig',
      alg: 'RS256',
      n,
      e,
      x5c: [encodeBase64(signing), encodeBase64(root)],
    },
    certificatePem: formatPem('CERTIFICATE', signing),
    rootPem: formatPem('CERTIFICATE', root),
    publicKeyPem: formatPem('PUBLIC KEY', spki),
  };
}

async function idpPki(kid: string): Promise<FakeIdpPki> {
  const keys = await generateKeys();
  const { n, e } = await publicJwk(keys.publicKey);
  return {
    kid,
    privateKey: keys.privateKey,
    publicKey: keys.publicKey,
    jwk: { kty: 'RSA', kid, use: 'sig', alg: 'RS256', n, e },
  };
}

let shared: Promise<FakePki> | undefined;

/**
 * The fakes' PKI, made on the first call and shared afterwards (one promise per process or
 * page). A failed attempt is forgotten, so the next call tries again.
 */
export function loadFakePki(): Promise<FakePki> {
  shared ??= Promise.all([
    servicePki('main', 'fake-main-key'),
    servicePki('standby', 'fake-standby-key'),
    idpPki('fake-idp-key'),
  ]).then(
    ([main, standby, idp]) => ({ main, standby, idp }),
    (error: unknown) => {
      shared = undefined;
      throw error;
    },
  );
  return shared;
}
