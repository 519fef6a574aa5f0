// The event client's signing: key import, compact JWS for `put`/`putAll` and JWTs for reads
// authorized by a private key, on WebCrypto (docs/decisions/0034-event-signing-on-webcrypto.md).
// Only ever loaded with `import()` at first use (put-events.ts, read-token.ts), so a bundler puts
// it in a lazy chunk and an app that only reads feeds with a token provider never downloads it
// (docs/decisions/0020-lazy-event-signing.md).
import { LicensingError } from '../errors.js';
import { parsePemBlocks } from '../internal/pem.js';
import { encodeBase64url } from '../internal/platform/base64url.js';
import type { EventSigningAlgorithm, PrivateKeyInput } from '../options/event-client.js';

/** RSASSA-PKCS1-v1_5 with the hash of each JWS `alg` the event service accepts. */
const HASHES: Record<EventSigningAlgorithm, string> = {
  RS256: 'SHA-256',
  RS384: 'SHA-384',
  RS512: 'SHA-512',
};

/** The smallest RSA modulus accepted, in bits: what jose (the service's verifier) requires. */
const MIN_MODULUS_BITS = 2048;

/** Why a CryptoKey cannot sign `alg`, or undefined when it can. */
function unusable(key: CryptoKey, alg: EventSigningAlgorithm): string | undefined {
  const algorithm = key.algorithm as Partial<RsaHashedKeyAlgorithm>;
  if (key.type !== 'private' || algorithm.name !== 'RSASSA-PKCS1-v1_5') {
    return 'it is not an RSASSA-PKCS1-v1_5 private key';
  }
  if (algorithm.hash?.name !== HASHES[alg]) {
    return `it is for ${algorithm.hash?.name ?? 'another hash'}, not ${HASHES[alg]}`;
  }
  if ((algorithm.modulusLength ?? 0) < MIN_MODULUS_BITS) {
    return `its modulus has ${algorithm.modulusLength} bits, fewer than ${MIN_MODULUS_BITS}`;
  }
  return undefined;
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof CryptoKey !== 'undefined' && value instanceof CryptoKey;
}

/** Imports PKCS#8 PEM text or a private JWK for `alg` with WebCrypto; throws on anything else. */
function importKey(key: string | JsonWebKey, alg: EventSigningAlgorithm): Promise<CryptoKey> {
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: HASHES[alg] };
  if (typeof key === 'string') {
    const block = parsePemBlocks(key).find((candidate) => candidate.label === 'PRIVATE KEY');
    if (!block) throw new TypeError('no PKCS#8 block (-----BEGIN PRIVATE KEY-----) in the text');
    return globalThis.crypto.subtle.importKey('pkcs8', block.der, algorithm, false, ['sign']);
  }
  // A JWK's own `alg` and `use` would make WebCrypto refuse a key given for another `alg`: jose
  // drops them too, and the checks below say what is wrong instead.
  const { alg: _alg, use: _use, ...jwk } = key as JsonWebKey & { use?: unknown };
  return globalThis.crypto.subtle.importKey('jwk', jwk, algorithm, false, ['sign']);
}

/**
 * Turns a {@link PrivateKeyInput} into a `CryptoKey` that signs `alg` (WebCrypto: no Node APIs):
 * an RSA private key of at least 2048 bits, imported from PKCS#8 PEM text or a private JWK, or a
 * `CryptoKey` checked as it is. Throws LicensingError INVALID_ARGUMENT, with the import failure as
 * cause.
 */
export async function importSigningKey(
  key: PrivateKeyInput,
  alg: EventSigningAlgorithm,
  name: string,
): Promise<CryptoKey> {
  if (!isCryptoKey(key) && typeof key !== 'string' && (typeof key !== 'object' || key === null)) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} is not a CryptoKey, a private RSA JWK or PKCS#8 PEM text. Pass the event writer's RSA private key in one of these forms.`,
    );
  }
  let imported: CryptoKey;
  try {
    imported = isCryptoKey(key) ? key : await importKey(key as string | JsonWebKey, alg);
  } catch (cause) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} is not a usable ${alg} private key. Pass the event writer's RSA private key.`,
      { cause },
    );
  }
  const why = unusable(imported, alg);
  if (why !== undefined) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} is not a usable ${alg} private key: ${why}. Pass the event writer's RSA private key (at least ${MIN_MODULUS_BITS} bits).`,
    );
  }
  return imported;
}

/** The UTF-8 bytes of a JSON value. */
function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

/**
 * Signs `payload` as a compact JWS (RFC 7515 7.1): `BASE64URL(header) . BASE64URL(payload) .
 * BASE64URL(signature)`, the signature over the first two parts with `key` (from
 * {@link importSigningKey}, which checked it against `header.alg`).
 */
export async function signCompactJws(
  payload: Uint8Array,
  header: { alg: EventSigningAlgorithm; kid?: string; typ?: 'JWT' },
  key: CryptoKey,
): Promise<string> {
  const input = `${encodeBase64url(jsonBytes(header))}.${encodeBase64url(payload)}`;
  const signature = await globalThis.crypto.subtle.sign(
    'RSASSA-PKCS1-v1_5',
    key,
    new TextEncoder().encode(input),
  );
  return `${input}.${encodeBase64url(new Uint8Array(signature))}`;
}

/** Signs a JWT with `claims`, `iat` and `exp` (seconds since the epoch): a compact JWS of them. */
export function signJwt(
  claims: Record<string, unknown>,
  header: { alg: EventSigningAlgorithm; typ: 'JWT'; kid?: string },
  times: { iat: number; exp: number },
  key: CryptoKey,
): Promise<string> {
  return signCompactJws(jsonBytes({ ...claims, iat: times.iat, exp: times.exp }), header, key);
}
