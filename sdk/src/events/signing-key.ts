import type { JWK } from 'jose';
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
