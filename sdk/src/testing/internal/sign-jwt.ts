// RS256 compact JWTs for the fake services (leases, release answers, ID tokens), signed with
// WebCrypto through jose. Private to the testing kit.
import { SignJWT } from 'jose';

/**
 * `claims` signed RS256 with `privateKey`, header `{ alg: 'RS256', kid, typ: 'JWT' }`.
 *
 * @example
 * const token = await signJwt({ ItemA: true, jti: 'J1' }, pki.main.privateKey, pki.main.kid);
 */
export function signJwt(
  claims: Record<string, unknown>,
  privateKey: CryptoKey,
  kid: string,
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey);
}
