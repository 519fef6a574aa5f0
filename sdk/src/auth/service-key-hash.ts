import { LicensingError } from '../errors.js';
import { toHex } from '../internal/base64.js';
import { parseCertificate, parsePublicKeyInfo } from '../internal/certificate.js';
import { formatPem, parsePemBlocks } from '../internal/pem.js';

// AlgorithmIdentifier { rsaEncryption, NULL } in DER, to wrap a PKCS#1 key as SPKI.
const RSA_ENCRYPTION_ALGORITHM = [
  0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
];

function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

function pkcs1ToSpki(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  const bitString = [0x03, ...derLength(pkcs1.length + 1), 0x00];
  const content = RSA_ENCRYPTION_ALGORITHM.length + bitString.length + pkcs1.length;
  const out = new Uint8Array([
    0x30,
    ...derLength(content),
    ...RSA_ENCRYPTION_ALGORITHM,
    ...bitString,
    ...pkcs1,
  ]);
  return out;
}

/** The SPKI DER of the first usable PEM block (public key, PKCS#1 RSA key or certificate). */
function toSpki(pem: string): Uint8Array<ArrayBuffer> {
  for (const block of parsePemBlocks(pem)) {
    if (block.label === 'PUBLIC KEY') {
      // Parsing proves the bytes are a SubjectPublicKeyInfo, not just any base64.
      parsePublicKeyInfo(block.der);
      return block.der;
    }
    if (block.label === 'RSA PUBLIC KEY') {
      const spki = pkcs1ToSpki(block.der);
      parsePublicKeyInfo(spki);
      return spki;
    }
    if (block.label === 'CERTIFICATE') {
      return parseCertificate(block.der).publicKey;
    }
  }
  throw new TypeError('expected a PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE PEM block');
}

/**
 * The canonical SPKI PEM text that the `ServiceKeyHash` is computed over: `-----BEGIN PUBLIC
 * KEY-----`, 64-character base64 lines, `\n` line ends and one trailing `\n`.
 *
 * @param publicKeyPem A `PUBLIC KEY` (SPKI) or `RSA PUBLIC KEY` (PKCS#1) PEM, or a `CERTIFICATE`
 *   PEM (its subject public key is used), with any line wrapping and CRLF or LF line ends.
 * @throws LicensingError `INVALID_ARGUMENT` when the text holds no such key.
 * @example
 * const canonical = canonicalPublicKeyPem(pemFromConfigFile);
 */
export function canonicalPublicKeyPem(publicKeyPem: string): string {
  if (typeof publicKeyPem !== 'string') {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      "publicKeyPem is not a string. Pass the main deployment's public key as PEM text.",
    );
  }
  try {
    return formatPem('PUBLIC KEY', toSpki(publicKeyPem));
  } catch (cause) {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `publicKeyPem is not a usable public key${detail}. Pass the main deployment's public key (PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE PEM).`,
      {
        cause,
      },
    );
  }
}

/**
 * Computes the `ServiceKeyHash` credential: lowercase hex SHA-256 (WebCrypto) over the main
 * deployment's public key as canonical SPKI PEM text (see {@link canonicalPublicKeyPem}).
 *
 * @param publicKeyPem SPKI, PKCS#1 or certificate PEM, any wrapping, LF or CRLF.
 * @returns 64 lowercase hex characters.
 * @throws LicensingError `INVALID_ARGUMENT` when the PEM holds no usable public key.
 * @example
 * const hash = await computeServiceKeyHash(mainServicePublicKeyPem);
 * const client = createLicensingClient({ mainUrl, standbyUrl, auth: { serviceKeyHash: hash } });
 */
export async function computeServiceKeyHash(publicKeyPem: string): Promise<string> {
  const canonical = canonicalPublicKeyPem(publicKeyPem);
  const digest = await globalThis.crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(canonical),
  );
  return toHex(digest);
}
