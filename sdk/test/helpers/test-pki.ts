// TEST HELPER ONLY: never exported from sdk/src/index.ts. Generates real RSA keys and X.509
// roots/intermediates/signing certificates in memory (nothing is written, no key is committed),
// publishes JWKS entries with `x5c`, and signs lease tokens, so SDK, QA-kit and conformance tests
// exercise the real verification path.
import { base64url, SignJWT } from 'jose';
import { encodeBase64 } from '../../src/internal/base64.js';
import type { JwkSet, TrustedRoot } from '../../src/types.js';
import { x509 } from './x509.js';

const DAY_MS = 86_400_000;
const FIVE_YEARS_MS = 5 * 365 * DAY_MS;
const RSA_ALGORITHM: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

/** A certificate authority: a root (self-signed) or an intermediate. */
export interface TestCa {
  name: string;
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
  /** PEM of `cert`. */
  pem: string;
  /** This CA's certificate followed by its issuers' up to the root (the tail of an `x5c`). */
  chain: x509.X509Certificate[];
}

/** A lease-signing key with its certificate and published JWK. */
export interface TestSigningKey {
  kid: string;
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
  certPem: string;
  /** The JWK as the services publish it: `kty`, `kid`, `use`, `alg`, `n`, `e`, `x5c`. */
  jwk: Record<string, unknown> & { kid: string; n: string; e: string; x5c: string[] };
  /** Signs a lease token with this key; fills `iat` (now) and `exp` (iat + 8 h) when absent. */
  sign(claims: Record<string, unknown>, options?: SignLeaseOptions): Promise<string>;
}

/** Options of {@link TestSigningKey.sign} and {@link TestPki.signLease}. */
export interface SignLeaseOptions {
  /** Header `kid`. Default: the key's kid. `null` leaves it out. */
  kid?: string | null;
  /** Header `alg`: `RS256` (default), `HS256` (HMAC with a fixed secret) or `none` (unsigned). */
  alg?: 'RS256' | 'HS256' | 'none';
  /** Extra protected header members. */
  header?: Record<string, unknown>;
}

/** Validity and naming options shared by the generators. */
export interface TestCertOptions {
  /** Common name. Default: a random name. */
  name?: string;
  /** Default: now - 1 day. */
  notBefore?: Date;
  /** Default: now + 5 years. */
  notAfter?: Date;
}

/** Options of {@link createTestCa}. */
export interface CreateTestCaOptions extends TestCertOptions {
  /** Issuing CA; omitted: a self-signed root. */
  issuer?: TestCa;
  /** basicConstraints `cA`. Default true; false makes a certificate that must not issue. */
  ca?: boolean;
  /** keyUsage flags. Default keyCertSign | cRLSign. */
  keyUsage?: x509.KeyUsageFlags;
  /** Extensions added after the default ones. */
  extensions?: x509.Extension[];
}

/** Options of {@link TestPki.createSigningKey}. */
export interface CreateSigningKeyOptions extends TestCertOptions {
  kid?: string;
  /** Issuing CA. Default: the PKI's root. */
  issuer?: TestCa;
  /** Reuse a key pair (e.g. to publish one key under two certificates). */
  keys?: CryptoKeyPair;
  /** Extensions added after basicConstraints and keyUsage (e.g. an extendedKeyUsage). */
  extensions?: x509.Extension[];
}

/** What {@link createTestPki} returns. */
export interface TestPki {
  root: TestCa;
  /** The root certificate PEM an app would embed. */
  rootPem: string;
  /** `{ pem, keyId }` for the verifier's `roots` / the client's `trust.rootCertificates`. */
  trustedRoot: TrustedRoot;
  /** The default signing key, issued by `root`. */
  signingKey: TestSigningKey;
  kid: string;
  /** `{ keys: [signingKey.jwk] }`. */
  jwks: JwkSet;
  /** Signs claims with the default key; fills `iat` (now) and `exp` (iat + 8 h) when absent. */
  signLease(claims: Record<string, unknown>, options?: SignLeaseOptions): Promise<string>;
  /** Issues another signing key (by default under `root`, valid now - 1 day .. now + 5 years). */
  createSigningKey(options?: CreateSigningKeyOptions): Promise<TestSigningKey>;
  /** Creates a CA: under `root` by default (an intermediate), or pass `issuer`. */
  createIntermediate(
    options?: Omit<CreateTestCaOptions, 'issuer'> & { issuer?: TestCa },
  ): Promise<TestCa>;
  /** The clock the PKI was created with. */
  now: () => number;
}

let counter = 0;
const uniqueName = (prefix: string) => `${prefix} ${Date.now().toString(36)}-${++counter}`;
const HMAC_SECRET = new TextEncoder().encode('test-hmac-secret-that-no-verifier-should-accept');

function generateKeys(): Promise<CryptoKeyPair> {
  return globalThis.crypto.subtle.generateKey(RSA_ALGORITHM, true, ['sign', 'verify']);
}

/** Creates a self-signed root CA, or an intermediate when `issuer` is given. */
export async function createTestCa(
  options: CreateTestCaOptions & { now?: () => number } = {},
): Promise<TestCa> {
  const now = (options.now ?? Date.now)();
  const name = options.name ?? uniqueName(options.issuer ? 'Test Intermediate' : 'Test Root');
  const keys = await generateKeys();
  const extensions = [
    new x509.BasicConstraintsExtension(options.ca ?? true, undefined, true),
    new x509.KeyUsagesExtension(
      options.keyUsage ?? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ...(options.extensions ?? []),
  ];
  const notBefore = options.notBefore ?? new Date(now - DAY_MS);
  const notAfter = options.notAfter ?? new Date(now + FIVE_YEARS_MS);
  const cert = options.issuer
    ? await x509.X509CertificateGenerator.create({
        subject: `CN=${name}`,
        issuer: options.issuer.cert.subject,
        publicKey: keys.publicKey,
        signingKey: options.issuer.keys.privateKey,
        notBefore,
        notAfter,
        extensions,
      })
    : await x509.X509CertificateGenerator.createSelfSigned({
        name: `CN=${name}`,
        keys,
        notBefore,
        notAfter,
        extensions,
      });
  const chain = [cert, ...(options.issuer?.chain ?? [])];
  return { name, keys, cert, pem: cert.toString('pem'), chain };
}

/** Creates an unrelated root CA (e.g. "a key whose chain leads to another root"). */
export function createTestRoot(
  options: Omit<CreateTestCaOptions, 'issuer'> & { now?: () => number } = {},
): Promise<TestCa> {
  return createTestCa(options);
}

function encodeSegment(value: unknown): string {
  return base64url.encode(JSON.stringify(value));
}

async function signToken(
  privateKey: CryptoKey,
  defaultKid: string,
  claims: Record<string, unknown>,
  options: SignLeaseOptions,
): Promise<string> {
  const kid = options.kid === undefined ? defaultKid : options.kid;
  const alg = options.alg ?? 'RS256';
  const header = {
    alg,
    typ: 'JWT',
    ...(kid === null ? {} : { kid }),
    ...options.header,
  };
  if (alg === 'none') return `${encodeSegment(header)}.${encodeSegment(claims)}.`;
  const jwt = new SignJWT(claims).setProtectedHeader(header);
  return jwt.sign(alg === 'HS256' ? HMAC_SECRET : privateKey);
}

/** Issues a signing certificate for `keys` under `issuer` and builds its JWK with `x5c`. */
export async function createTestSigningKey(
  issuer: TestCa,
  options: CreateSigningKeyOptions & { now?: () => number } = {},
): Promise<TestSigningKey> {
  const now = options.now ?? Date.now;
  const keys = options.keys ?? (await generateKeys());
  const kid = options.kid ?? uniqueName('key').replace(/\s+/g, '-');
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${options.name ?? `Lease signing ${kid}`}`,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    notBefore: options.notBefore ?? new Date(now() - DAY_MS),
    notAfter: options.notAfter ?? new Date(now() + FIVE_YEARS_MS),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...(options.extensions ?? []),
    ],
  });
  const { n, e } = await globalThis.crypto.subtle.exportKey('jwk', keys.publicKey);
  const jwk = {
    kty: 'RSA',
    kid,
    use: 'sig',
    alg: 'RS256',
    n: n!,
    e: e!,
    x5c: [cert, ...issuer.chain].map((c) => encodeBase64(c.rawData)),
  };
  return {
    kid,
    keys,
    cert,
    certPem: cert.toString('pem'),
    jwk,
    sign(claims, signOptions = {}) {
      const iat = Math.floor(now() / 1000);
      return signToken(keys.privateKey, kid, { iat, exp: iat + 8 * 3600, ...claims }, signOptions);
    },
  };
}

/**
 * Creates a complete test PKI: a root CA (what the app embeds), a signing key issued by it with
 * its JWKS entry, and a lease signer. Certificates are valid from now - 1 day to now + 5 years
 * at the injected clock. Generates two RSA-2048 keys: share one PKI across a test file.
 *
 * @example
 * const pki = await createTestPki({ now: () => T0 });
 * const verifier = createLeaseVerifier({ roots: [pki.trustedRoot], loadJwks: async () => pki.jwks, now: () => T0 });
 * const token = await pki.signLease({ ItemA: true, lic: 'L1', jti: 'J1' });
 * const expired = await pki.createSigningKey({ notBefore: new Date(T0 - 2 * DAY), notAfter: new Date(T0 - DAY) });
 * const otherRoot = await createTestRoot();
 */
export async function createTestPki(
  options: { now?: () => number; kid?: string; rootName?: string } = {},
): Promise<TestPki> {
  const now = options.now ?? Date.now;
  const root = await createTestCa({ now, ...(options.rootName ? { name: options.rootName } : {}) });
  const signingKey = await createTestSigningKey(root, {
    now,
    kid: options.kid ?? 'test-key-1',
  });
  return {
    root,
    rootPem: root.pem,
    trustedRoot: { pem: root.pem, keyId: signingKey.kid },
    signingKey,
    kid: signingKey.kid,
    jwks: { keys: [signingKey.jwk] },
    signLease: (claims, signOptions) => signingKey.sign(claims, signOptions),
    createSigningKey: (keyOptions = {}) =>
      createTestSigningKey(keyOptions.issuer ?? root, { now, ...keyOptions }),
    createIntermediate: (caOptions = {}) => createTestCa({ now, issuer: root, ...caOptions }),
    now,
  };
}
