import { decodeBase64 } from '../internal/base64.js';
import {
  type CertificateInfo,
  parseCertificate,
  sameBytes,
  verifyCertificateSignature,
} from '../internal/certificate.js';
import { formatPem } from '../internal/pem.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { type StandbySigningKey, standbyEndpoint } from './create-signing-key.js';
import { apiErrorCode, describeApiError, fetchText } from './fetch-text.js';

/** A caller credential of the standby's licensing endpoints (its JWK set is one of them). */
export interface CallerCredential {
  /** The `Authorization` scheme. */
  scheme: 'IdToken' | 'ServiceKeyHash';
  value: string;
}

/** The standby's current (default) signing key, read from its JWK set. */
export interface CurrentSigningKey extends StandbySigningKey {
  /** How many keys the JWK set holds (the current one and the older ones still usable). */
  keyCount: number;
}

const CREDENTIAL_NAMES = { IdToken: 'ID token', ServiceKeyHash: 'ServiceKeyHash' } as const;

/** Where to go from a JWK set that cannot give the key's root. */
function rootHint(keyId: string): string {
  return `embed the root you kept from when the key was made (--pem <file> --key-id ${keyId}), or make a new key with --new-key`;
}

/** Integer bytes of a base64url JWK member, leading zeros dropped, for comparing. */
function integerOf(value: string): string {
  return Buffer.from(value, 'base64url')
    .toString('hex')
    .replace(/^(00)+(?=.)/, '');
}

/** Whether the JWK's `n` and `e` are the public key of `leaf`. */
async function sameRsaKey(jwk: Record<string, unknown>, leaf: CertificateInfo): Promise<boolean> {
  if (jwk.kty !== 'RSA' || typeof jwk.n !== 'string' || typeof jwk.e !== 'string') return false;
  try {
    const key = await globalThis.crypto.subtle.importKey(
      'spki',
      leaf.publicKey,
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      true,
      ['verify'],
    );
    const exported = await globalThis.crypto.subtle.exportKey('jwk', key);
    return (
      integerOf(exported.n!) === integerOf(jwk.n) && integerOf(exported.e!) === integerOf(jwk.e)
    );
  } catch {
    return false;
  }
}

/**
 * The certificates of the key's `x5c`, checked to make a chain that ends at a self-signed root:
 * each signed by the next, the last a self-issued CA that signed itself, the first holding the
 * JWK's own public key. So the root returned is the one that key's leases verify against.
 */
async function checkedChain(
  jwk: Record<string, unknown>,
  keyId: string,
): Promise<CertificateInfo[]> {
  const { x5c } = jwk;
  if (!Array.isArray(x5c) || x5c.length < 2 || !x5c.every((entry) => typeof entry === 'string')) {
    const count = Array.isArray(x5c) ? x5c.length : 0;
    throw new CliError(
      1,
      `the standby's JWK of key ${keyId} carries no root certificate (x5c has ${count} ${count === 1 ? 'entry' : 'entries'}): ${rootHint(keyId)}`,
    );
  }
  const chain = (x5c as string[]).map((entry, index) => {
    try {
      return parseCertificate(decodeBase64(entry));
    } catch (cause) {
      throw new CliError(1, `x5c[${index}] of the standby's key ${keyId} is not a certificate`, {
        cause,
      });
    }
  });
  const root = chain.at(-1)!;
  if (!sameBytes(root.subjectDer, root.issuerDer) || root.basicConstraints?.ca !== true) {
    throw new CliError(
      1,
      `the last x5c certificate of the standby's key ${keyId} (${root.subject}) is not a self-issued CA certificate, so the JWK set does not show the key's root: ${rootHint(keyId)}`,
    );
  }
  for (const [index, cert] of chain.entries()) {
    const issuer = chain[index + 1] ?? root;
    if (!(await verifyCertificateSignature(cert, issuer.publicKey))) {
      const by = index + 1 < chain.length ? `x5c[${index + 1}]` : 'itself';
      throw new CliError(
        1,
        `x5c[${index}] of the standby's key ${keyId} (${cert.subject}) is not signed by ${by}`,
      );
    }
  }
  if (!(await sameRsaKey(jwk, chain[0]!))) {
    throw new CliError(
      1,
      `the JWK of the standby's key ${keyId} is not the public key of its x5c[0] certificate`,
    );
  }
  return chain;
}

/**
 * Reads the standby's current signing key and its root certificate from its JWK set
 * (`GET /.well-known/jwks.json` with a caller credential): the first key, since the standby lists
 * its keys newest first and the newest is the default. Checks that the key's `x5c` chain ends at
 * that root. Nothing changes on the standby. Refusals (a dormant standby, a refused credential)
 * and a JWK set that does not show the root are {@link CliError}s (exit code 1) saying what to do.
 *
 * @example
 * const { keyId, rootCertificate } = await readCurrentSigningKey(url, { scheme: 'IdToken', value: idToken }, io);
 */
export async function readCurrentSigningKey(
  url: URL,
  credential: CallerCredential,
  io: CliIo,
): Promise<CurrentSigningKey> {
  const endpoint = standbyEndpoint(url, '.well-known/jwks.json');
  const [response, body] = await fetchText(
    endpoint,
    {
      headers: {
        Authorization: `${credential.scheme} ${credential.value}`,
        Accept: 'application/json',
      },
    },
    io,
  );
  if (response.status === 403 && apiErrorCode(body) === 'standby_dormant') {
    const enable = standbyEndpoint(url, 'enabled').href;
    throw new CliError(
      1,
      `the standby is dormant (HTTP 403 standby_dormant) and shows its signing keys only while active: enable it (POST ${enable} with the API key), or embed a root you kept (--pem <file> --key-id <id>), or make a new key with --new-key (works while dormant)`,
    );
  }
  if (response.status === 401) {
    const hint =
      credential.scheme === 'IdToken'
        ? 'the standby accepts an ID token from its issuer until 24 h after its exp: pass a fresh one'
        : "it must be the lowercase hex SHA-256 of the main service's public key PEM that the standby trusts";
    throw new CliError(
      1,
      `the standby refused the ${CREDENTIAL_NAMES[credential.scheme]}: ${describeApiError(401, body)} (${hint})`,
    );
  }
  if (response.status !== 200) {
    throw new CliError(
      1,
      `the standby's JWK set could not be read: ${describeApiError(response.status, body)}`,
    );
  }
  let keys: unknown;
  try {
    keys = (JSON.parse(body) as { keys?: unknown }).keys;
  } catch (error) {
    throw new CliError(1, `GET ${endpoint.href} did not answer JSON`, { cause: error });
  }
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new CliError(1, `the standby's JWK set (${endpoint.href}) holds no keys`);
  }
  const jwk = keys[0] as Record<string, unknown> | null;
  if (typeof jwk !== 'object' || jwk === null || typeof jwk.kid !== 'string' || jwk.kid === '') {
    throw new CliError(1, `the first key of the standby's JWK set has no kid`);
  }
  const chain = await checkedChain(jwk, jwk.kid);
  return {
    keyId: jwk.kid,
    rootCertificate: formatPem('CERTIFICATE', chain.at(-1)!.der),
    keyCount: keys.length,
  };
}
