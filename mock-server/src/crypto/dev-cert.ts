// Throwaway TLS certificates for running the mock server over HTTPS on a developer machine or in
// CI: a fresh certificate authority and a server certificate it issues for the loopback names.
// Nothing is reused between calls, and the CA's private key is handed back only to the caller
// that asks for it (the command line never writes it).
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { caExtensions, loadX509, type X509, x509Provider } from './certificates.js';

// ECDSA P-256: generated in milliseconds, accepted by every TLS client the SDK runs in.
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const provider = x509Provider;
const DAY_MS = 86_400_000;
/** How far notBefore lies before the issue time, in ms (clocks a little behind still accept). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** The names a local mock server is reached by. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** A certificate authority made by {@link createDevCertificates}: certificate and key, PEM. */
export interface DevCertificateAuthority {
  /** The self-signed CA certificate, PEM: what a client adds to its trust anchors. */
  certificate: string;
  /** The CA's private key, PKCS#8 PEM: only to issue more certificates in the same run. */
  privateKey: string;
}

/** What {@link createDevCertificates} made: the CA, and a server certificate with its key. */
export interface DevCertificates {
  ca: DevCertificateAuthority;
  /** The server certificate, PEM (for `--tls-cert` / `tls.cert`). */
  cert: string;
  /** The server certificate's private key, PKCS#8 PEM (for `--tls-key` / `tls.key`). */
  key: string;
}

/** Options of {@link createDevCertificates}. */
export interface DevCertificateOptions {
  /**
   * Host names and IP addresses the server certificate is valid for (subjectAltName).
   * Default {@link LOOPBACK_NAMES}: `localhost`, `127.0.0.1`, `::1`.
   */
  hosts?: readonly string[];
  /** Issue with this CA instead of a new one (e.g. a second certificate for another name). */
  ca?: DevCertificateAuthority;
  /** Common name of a new CA. Default `'standby-licensing throwaway CA'`. */
  caName?: string;
  /** Validity of the server certificate, in days. Default 30. */
  validDays?: number;
  /** Issue time in ms since the epoch. Default `Date.now()`. */
  now?: number;
}

const serial = () =>
  randomBytes(16)
    .toString('hex')
    .replace(/^[89a-f]/, '1');

async function importCa(x509: X509, ca: DevCertificateAuthority) {
  const certificate = new x509.X509Certificate(ca.certificate);
  const der = x509.PemConverter.decodeFirst(ca.privateKey);
  const privateKey = await provider.subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
  return { certificate, privateKey };
}

async function exportPrivateKey(x509: X509, key: CryptoKey): Promise<string> {
  const der = await provider.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/**
 * Makes a throwaway CA (unless `ca` is given) and a server certificate it issues for `hosts`,
 * so the mock server can serve HTTPS (`--tls-cert`, `--tls-key`) and a client can trust it by
 * adding the CA (`tls.ca`, `NODE_EXTRA_CA_CERTS`). ECDSA P-256, SHA-256, serverAuth only.
 *
 * @example
 * const { ca, cert, key } = await createDevCertificates();
 * const server = await startServer({ port: 0, tls: { cert, key } });
 * const client = createLicensingClient({ mainUrl: server.info.mainUrl, tls: { ca: ca.certificate }, ... });
 */
export async function createDevCertificates(
  options: DevCertificateOptions = {},
): Promise<DevCertificates> {
  const hosts = options.hosts ?? LOOPBACK_NAMES;
  if (hosts.length === 0 || hosts.some((host) => typeof host !== 'string' || host === '')) {
    throw new TypeError('hosts must be a non-empty list of host names or IP addresses');
  }
  const now = options.now ?? Date.now();
  const notBefore = new Date(now - CLOCK_SKEW_MS);
  let ca: DevCertificateAuthority;
  let issuer: Awaited<ReturnType<typeof importCa>>;
  // Loaded here, not with the command line: a mock that serves needs none of it.
  const x509 = await loadX509();
  if (options.ca) {
    ca = options.ca;
    issuer = await importCa(x509, ca);
  } else {
    const keys = (await provider.subtle.generateKey(ALGORITHM, true, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    const name = `CN=${options.caName ?? 'standby-licensing throwaway CA'}`;
    const certificate = await x509.X509CertificateGenerator.createSelfSigned(
      {
        serialNumber: serial(),
        name,
        notBefore,
        notAfter: new Date(now + 10 * 365 * DAY_MS),
        keys,
        signingAlgorithm: ALGORITHM,
        extensions: await caExtensions(x509, keys.publicKey),
      },
      provider,
    );
    ca = {
      certificate: certificate.toString('pem'),
      privateKey: await exportPrivateKey(x509, keys.privateKey),
    };
    issuer = { certificate, privateKey: keys.privateKey };
  }
  const leafKeys = (await provider.subtle.generateKey(ALGORITHM, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: `CN=${hosts[0]}`,
      issuer: issuer.certificate.subject,
      notBefore,
      notAfter: new Date(now + (options.validDays ?? 30) * DAY_MS),
      publicKey: leafKeys.publicKey,
      signingKey: issuer.privateKey,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
        new x509.SubjectAlternativeNameExtension(
          hosts.map((host) => ({
            type: isIP(host) ? ('ip' as const) : ('dns' as const),
            value: host,
          })),
          false,
        ),
        await x509.AuthorityKeyIdentifierExtension.create(issuer.certificate, false, provider),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey, false, provider),
      ],
    },
    provider,
  );
  return { ca, cert: leaf.toString('pem'), key: await exportPrivateKey(x509, leafKeys.privateKey) };
}
