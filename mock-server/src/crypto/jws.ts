import { createSign, type KeyObject } from 'node:crypto';

/** JWS algorithms the mock server signs with. */
export type RsaAlg = 'RS256' | 'RS384' | 'RS512';

/** The node:crypto hash of each {@link RsaAlg} (PKCS#1 v1.5 signatures). */
export const JWS_HASH: Readonly<Record<RsaAlg, string>> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
};

function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * The JWS signing input `<header>.<payload>` (each base64url JSON) and its algorithm; `alg`
 * defaults to RS256 and is written into the header.
 *
 * @example
 * const { alg, input } = jwsSigningInput({ kid: 'k1', typ: 'JWT' }, { sub: 'u1' });
 */
export function jwsSigningInput(
  header: Record<string, unknown>,
  payload: unknown,
): { alg: RsaAlg; input: string } {
  const alg = (header.alg ?? 'RS256') as RsaAlg;
  return { alg, input: `${encodeSegment({ ...header, alg })}.${encodeSegment(payload)}` };
}

/**
 * Signs a compact JWS synchronously with node:crypto on this thread (one RSA signature, no extra
 * copies). Leases go through the signing pool instead (`signing-pool.ts`); this serves ID tokens
 * and tests.
 */
export function signCompactJws(
  header: Record<string, unknown>,
  payload: unknown,
  privateKey: KeyObject,
): string {
  const { alg, input } = jwsSigningInput(header, payload);
  const signature = createSign(JWS_HASH[alg]).update(input).sign(privateKey, 'base64url');
  return `${input}.${signature}`;
}
