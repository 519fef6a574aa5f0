import { type KeyObject, webcrypto } from 'node:crypto';
import { generateRsaKey, type RsaKey } from './rsa-key.js';

/** The @peculiar/x509 module. */
export type X509 = typeof import('@peculiar/x509');

let x509Module: Promise<X509> | undefined;

/**
 * @peculiar/x509 (with the reflect-metadata it needs), loaded on the first certificate: it takes
 * about 110 ms to load, a fifth of the cold-start budget, and a server that keeps its chains in
 * the data dir never needs it.
 */
export function loadX509(): Promise<X509> {
  x509Module ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return x509Module;
}

/**
 * The extensions of a certificate authority's own certificate: CA (no intermediate below it),
 * keyCertSign and cRLSign, its subject key identifier.
 */
export async function caExtensions(x509: X509, publicKey: CryptoKey) {
  return [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(publicKey, false, x509Provider),
  ];
}

const ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
const VALIDITY_YEARS = 5;
/** How far notBefore lies before the issue time, in ms. */
const CLOCK_SKEW_MS = 5 * 60_000;
const subtle = webcrypto.subtle;
/** @peculiar/x509 types its provider as the DOM `Crypto`; node's webcrypto is that at runtime. */
export const x509Provider = webcrypto as unknown as Crypto;
const provider = x509Provider;

/** A signing key's certificate chain: its own root (CA) and the signing certificate it issued. */
export interface CertificateChain {
  /** PKCS#8 PEM of the root key (kept so the chain can be re-issued; never served). */
  rootPrivatePem: string;
  /** Self-signed root certificate, PEM. */
  rootCertificate: string;
  /** Signing-key certificate issued by the root, PEM. */
  signingCertificate: string;
  /** Start of validity (issue time minus 5 minutes of clock skew), ISO 8601. */
  notBefore: string;
  /** End of validity (five years after the issue time), ISO 8601. */
  notAfter: string;
}

const pem = (label: string) => ({ type: 'string', pattern: `-----BEGIN ${label}-----` }) as const;

/** JSON schema of a stored {@link CertificateChain} (part of data-dir documents). */
export const certificateChainSchema = {
  type: 'object',
  required: ['rootPrivatePem', 'rootCertificate', 'signingCertificate', 'notBefore', 'notAfter'],
  properties: {
    rootPrivatePem: pem('PRIVATE KEY'),
    rootCertificate: pem('CERTIFICATE'),
    signingCertificate: pem('CERTIFICATE'),
    notBefore: { type: 'string', minLength: 1 },
    notAfter: { type: 'string', minLength: 1 },
  },
} as const;

/** Options of {@link createCertificateChain}. */
export interface CreateCertificateChainOptions {
  /** Issue time in ms since the epoch (the server clock). */
  now: number;
  /** Label put in both subjects, e.g. `Standby licensing`. */
  label: string;
}

async function toCryptoKeys(key: KeyObject, publicKey: KeyObject): Promise<CryptoKeyPair> {
  const [privateKey, pub] = await Promise.all([
    subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), ALGORITHM, true, [
      'sign',
    ]),
    subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), ALGORITHM, true, [
      'verify',
    ]),
  ]);
  return { privateKey, publicKey: pub } as unknown as CryptoKeyPair;
}

/**
 * Makes a new root key, its self-signed root certificate (CA, keyCertSign) and a certificate for
 * `signingKey` issued by that root (not a CA, digitalSignature), both valid five years from `now` (notBefore 5 minutes
 * earlier, for clock skew).
 *
 * @example
 * const chain = await createCertificateChain(await generateRsaKey(), { now: Date.now(), label: 'Standby' });
 */
export async function createCertificateChain(
  signingKey: RsaKey,
  options: CreateCertificateChainOptions,
): Promise<CertificateChain> {
  const [x509, root] = await Promise.all([loadX509(), generateRsaKey()]);
  const [rootKeys, leafKeys] = await Promise.all([
    toCryptoKeys(root.privateKey, root.publicKey),
    toCryptoKeys(signingKey.privateKey, signingKey.publicKey),
  ]);
  // X.509 times have second precision; truncate so the dates are exactly what the certs carry.
  const issued = Math.floor(options.now / 1000) * 1000;
  // Backdated a little: verifiers (@peculiar/x509 among them) need notBefore < now, and a
  // client clock slightly behind the server's must still accept a brand-new key.
  const notBefore = new Date(issued - CLOCK_SKEW_MS);
  const notAfter = new Date(issued);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + VALIDITY_YEARS);
  const rootName = `CN=${options.label} Root ${signingKey.kid}`;

  const rootCert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: rootName,
      notBefore,
      notAfter,
      keys: rootKeys,
      signingAlgorithm: ALGORITHM,
      extensions: await caExtensions(x509, rootKeys.publicKey),
    },
    provider,
  );
  const signingCert = await x509.X509CertificateGenerator.create(
    {
      subject: `CN=${options.label} Signing ${signingKey.kid}`,
      issuer: rootCert.subject,
      notBefore,
      notAfter,
      publicKey: leafKeys.publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey, false, provider),
        await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey, false, provider),
      ],
    },
    provider,
  );
  return {
    rootPrivatePem: root.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    rootCertificate: rootCert.toString('pem'),
    signingCertificate: signingCert.toString('pem'),
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
  };
}

/** The `x5c` member for a chain: [signing, root] as standard base64 DER. */
export function toX5c(chain: Pick<CertificateChain, 'rootCertificate' | 'signingCertificate'>) {
  return [chain.signingCertificate, chain.rootCertificate].map((pem) =>
    pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, ''),
  );
}
