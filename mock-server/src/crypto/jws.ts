import { createSign, type KeyObject } from 'node:crypto';

/** JWS algorithms the mock server signs with. */
export type RsaAlg = 'RS256' | 'RS384' | 'RS512';

const HASH: Record<RsaAlg, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };

function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * Signs a compact JWS synchronously with node:crypto (one RSA signature, no extra copies):
 * the hot path of every lease the standby issues.
 */
export function signCompactJws(
  header: Record<string, unknown>,
  payload: unknown,
  privateKey: KeyObject,
): string {
  const alg = (header.alg ?? 'RS256') as RsaAlg;
  const signingInput = `${encodeSegment({ ...header, alg })}.${encodeSegment(payload)}`;
  const signature = createSign(HASH[alg]).update(signingInput).sign(privateKey, 'base64url');
  return `${signingInput}.${signature}`;
}
