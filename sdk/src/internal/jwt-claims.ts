import { decodeStrictBase64url } from './platform/base64url.js';

/**
 * The claims of a compact JWT, read WITHOUT verifying it, as jose's `decodeJwt` read them (the
 * ID token's `exp`: the SDK only forwards that token). Undefined unless the text has three
 * dot-separated parts whose middle one is base64url (a trailing `=` padding tolerated) of a JSON
 * object. The SDK's static code does not use jose: jose is the lazily loaded event signer's
 * (docs/decisions/0033-bundled-entries.md).
 *
 * @example
 * readJwtClaims('eyJhbGciOiJub25lIn0.eyJleHAiOjF9.'); // { exp: 1 }
 * readJwtClaims('not a token'); // undefined
 */
export function readJwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const bytes = decodeStrictBase64url(parts[1]!.replace(/=+$/, ''));
  if (bytes === undefined || bytes.length === 0) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  return typeof claims === 'object' && claims !== null && !Array.isArray(claims)
    ? (claims as Record<string, unknown>)
    : undefined;
}
