// A test PKI made in memory with @peculiar/x509 (installed beside the packed packages): root and
// intermediate CAs, lease-signing keys with the JWK a service publishes (`x5c`), and compact JWS
// signed with WebCrypto. Nothing is written to disk.
import { load } from './harness.mjs';

await load('reflect-metadata');
/** @peculiar/x509, with the runtime's WebCrypto as its provider. */
export const x509 = await load('@peculiar/x509');
x509.cryptoProvider.set(globalThis.crypto);

const DAY = 86_400_000;
const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};
let counter = 0;

/** Compact JWS (RS256) of `claims` under `header`, signed with `privateKey`. */
export async function signJws(privateKey, header, claims) {
  const segment = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${segment({ alg: 'RS256', typ: 'JWT', ...header })}.${segment(claims)}`;
  const signature = await crypto.subtle.sign(
    'RSASSA-PKCS1-v1_5',
    privateKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

/** The claims of a compact JWS (not verified). */
export function claimsOf(token) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

/** A CA: self-signed root, or an intermediate under `issuer`; `extensions` added after the usual. */
export async function createCa({ name, issuer, extensions = [] } = {}) {
  const keys = await crypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const subject = `CN=${name ?? `Attack CA ${++counter}`}`;
  const base = [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ...extensions,
  ];
  const validity = {
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
  };
  const cert = issuer
    ? await x509.X509CertificateGenerator.create({
        subject,
        issuer: issuer.cert.subject,
        publicKey: keys.publicKey,
        signingKey: issuer.keys.privateKey,
        extensions: base,
        ...validity,
      })
    : await x509.X509CertificateGenerator.createSelfSigned({
        name: subject,
        keys,
        extensions: base,
        ...validity,
      });
  return { keys, cert, pem: cert.toString('pem'), chain: [cert, ...(issuer?.chain ?? [])] };
}

/** Publishes a CA's own key as a signing key (`x5c`: the CA's chain): a CA that signs leases. */
export async function caAsSigningKey(ca) {
  const kid = `attack-ca-key-${++counter}`;
  const { n, e } = await crypto.subtle.exportKey('jwk', ca.keys.publicKey);
  const x5c = ca.chain.map((c) => Buffer.from(c.rawData).toString('base64'));
  return {
    kid,
    keys: ca.keys,
    jwk: { kty: 'RSA', kid, use: 'sig', alg: 'RS256', n, e, x5c },
    sign: (claims, kidOverride = kid) => signJws(ca.keys.privateKey, { kid: kidOverride }, claims),
  };
}

/**
 * A lease-signing key under `issuer`, its certificate carrying `extensions` after
 * basicConstraints and keyUsage; with its JWK (`x5c`: its certificate and the issuer's chain).
 */
export async function createSigningKey(issuer, { extensions = [] } = {}) {
  const keys = await crypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const kid = `attack-key-${++counter}-${Date.now().toString(36)}`;
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=Lease signing ${kid}`,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...extensions,
    ],
  });
  const { n, e } = await crypto.subtle.exportKey('jwk', keys.publicKey);
  const jwk = {
    kty: 'RSA',
    kid,
    use: 'sig',
    alg: 'RS256',
    n,
    e,
    x5c: [cert, ...issuer.chain].map((c) => Buffer.from(c.rawData).toString('base64')),
  };
  return {
    kid,
    keys,
    jwk,
    /** Signs `claims` (the key's kid unless `kid` is given). */
    sign: (claims, kidOverride = kid) => signJws(keys.privateKey, { kid: kidOverride }, claims),
  };
}
