// The event client's jose signing code: key import, compact JWS for `put`/`putAll` and JWTs for
// reads authorized by a private key. Only ever loaded with `import()` at first use (put-events.ts,
// read-token.ts), so a bundler puts it in a lazy chunk and an app that only reads feeds with a
// token provider never downloads it (docs/decisions/0020-lazy-event-signing.md).
import { CompactSign, importJWK, importPKCS8, type JWTPayload, SignJWT } from 'jose';
import { LicensingError } from '../errors.js';
import type { EventSigningAlgorithm, PrivateKeyInput } from '../options/event-client.js';

/**
 * Turns a {@link PrivateKeyInput} into a `CryptoKey` for `alg` (jose, WebCrypto: no Node APIs).
 * Throws LicensingError INVALID_ARGUMENT with the import failure as cause.
 */
export async function importSigningKey(
  key: PrivateKeyInput,
  alg: EventSigningAlgorithm,
  name: string,
): Promise<CryptoKey> {
  try {
    if (typeof key === 'string') return await importPKCS8(key, alg);
    if (isCryptoKey(key)) return key;
    if (typeof key === 'object' && key !== null) {
      const imported = await importJWK(key, alg);
      if (isCryptoKey(imported)) return imported;
    }
  } catch (cause) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} is not a usable ${alg} private key. Pass the event writer's RSA private key.`,
      {
        cause,
      },
    );
  }
  throw new LicensingError(
    'INVALID_ARGUMENT',
    `${name} is not a CryptoKey, a private RSA JWK or PKCS#8 PEM text. Pass the event writer's RSA private key in one of these forms.`,
  );
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof CryptoKey !== 'undefined' && value instanceof CryptoKey;
}

/** Signs `payload` as a compact JWS with the protected `header`. */
export function signCompactJws(
  payload: Uint8Array,
  header: { alg: EventSigningAlgorithm; kid?: string },
  key: CryptoKey,
): Promise<string> {
  return new CompactSign(payload).setProtectedHeader(header).sign(key);
}

/** Signs a JWT with `claims`, `iat` and `exp` (seconds since the epoch). */
export function signJwt(
  claims: JWTPayload,
  header: { alg: EventSigningAlgorithm; typ: 'JWT'; kid?: string },
  times: { iat: number; exp: number },
  key: CryptoKey,
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader(header)
    .setIssuedAt(times.iat)
    .setExpirationTime(times.exp)
    .sign(key);
}
