import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/** A trusted public key, with the `kid` it was published under when known. */
export interface TrustedKey {
  readonly kid?: string;
  readonly key: KeyObject;
}

/**
 * Parses key material given on the command line: a PEM public key (SPKI, PKCS#1 or an X.509
 * certificate) or a JWKS / single-JWK JSON document. Throws a TypeError naming what it got.
 */
export function parsePublicKeys(text: string, source = 'key'): TrustedKey[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const doc = JSON.parse(trimmed) as { keys?: JsonWebKey[] } & JsonWebKey;
    const jwks = Array.isArray(doc.keys) ? doc.keys : [doc];
    return jwks.map((jwk) => ({
      ...(typeof jwk.kid === 'string' ? { kid: jwk.kid } : {}),
      key: createPublicKey({ key: jwk, format: 'jwk' }),
    }));
  }
  if (trimmed.includes('-----BEGIN')) return [{ key: createPublicKey(trimmed) }];
  throw new TypeError(`${source}: expected a PEM public key or a JWKS JSON document`);
}
