import { importJWK, importPKCS8, type JWK } from 'jose';
import { LicensingError } from '../errors.js';

/** RSA signature algorithms the event service accepts. */
export type EventSigningAlgorithm = 'RS256' | 'RS384' | 'RS512';

/** An RSA private key: a WebCrypto `CryptoKey`, a private JWK, or PKCS#8 PEM text. */
export type PrivateKeyInput = CryptoKey | JWK | string;

const ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512'];

/** Checks `alg` (default RS256). Throws LicensingError INVALID_ARGUMENT. */
export function resolveAlgorithm(alg: unknown, name: string): EventSigningAlgorithm {
  if (alg === undefined) return 'RS256';
  if (typeof alg === 'string' && ALGORITHMS.includes(alg)) return alg as EventSigningAlgorithm;
  throw new LicensingError('INVALID_ARGUMENT', `${name} must be RS256, RS384 or RS512`);
}

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
    throw new LicensingError('INVALID_ARGUMENT', `${name} is not a usable ${alg} private key`, {
      cause,
    });
  }
  throw new LicensingError(
    'INVALID_ARGUMENT',
    `${name} must be a CryptoKey, a private RSA JWK or PKCS#8 PEM text`,
  );
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return typeof CryptoKey !== 'undefined' && value instanceof CryptoKey;
}
