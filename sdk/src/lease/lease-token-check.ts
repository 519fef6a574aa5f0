// The checks of the lease token itself (as opposed to its signing key): header, signature,
// claims shape, times and the item claim. Each failure is a TokenInvalidError naming the check.
import type { ProtectedHeaderParameters } from 'jose';
import { TokenInvalidError } from '../errors.js';
import { decodeBase64url } from '../internal/platform/base64url.js';
import type { Rs256Verify } from '../internal/platform/rs256-verifier.js';
import type { LeaseClaims } from '../types.js';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A base64url JSON object segment of a JWS; throws on anything else. */
function decodeJsonSegment(segment: string): Record<string, unknown> {
  const value: unknown = JSON.parse(fromUtf8.decode(decodeBase64url(segment)));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError('not a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * Reads and checks the protected header before any key is touched: a compact JWS, `alg` RS256,
 * a `kid`, and neither `crit` nor `b64` (leases never use them).
 *
 * @throws TokenInvalidError with reason `malformed`, `alg` or `kid`.
 */
export function readLeaseHeader(token: unknown): ProtectedHeaderParameters & { kid: string } {
  if (typeof token !== 'string' || token.split('.').length !== 3) {
    throw new TokenInvalidError(
      'malformed',
      'the lease token is not a compact JWS (three dot-separated parts)',
    );
  }
  let header: ProtectedHeaderParameters;
  try {
    header = decodeJsonSegment(token.slice(0, token.indexOf('.'))) as ProtectedHeaderParameters;
  } catch (cause) {
    throw new TokenInvalidError(
      'malformed',
      `the lease token header cannot be decoded: ${messageOf(cause)}`,
      { cause },
    );
  }
  if (header.alg !== 'RS256') {
    throw new TokenInvalidError(
      'alg',
      `the lease token alg is ${JSON.stringify(header.alg)}; only RS256 is accepted`,
    );
  }
  if (typeof header.kid !== 'string' || header.kid.length === 0) {
    throw new TokenInvalidError('kid', 'the lease token header has no kid');
  }
  if (header.crit !== undefined || header.b64 !== undefined) {
    throw new TokenInvalidError(
      'malformed',
      'the lease token header carries crit or b64, which leases never use',
    );
  }
  return header as ProtectedHeaderParameters & { kid: string };
}

/**
 * Checks the RS256 signature of a compact JWS whose header was already read, then decodes its
 * claims and checks their shape (`exp` and `iat` numbers).
 *
 * @throws TokenInvalidError with reason `signature` or `malformed`.
 */
export async function verifyLeaseSignature(
  token: string,
  verify: Rs256Verify,
): Promise<LeaseClaims> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  let valid: boolean;
  try {
    valid = await verify(utf8.encode(`${header}.${payload}`), signature);
  } catch (cause) {
    throw new TokenInvalidError(
      'signature',
      `the lease token signature cannot be checked: ${messageOf(cause)}`,
      { cause },
    );
  }
  if (!valid) {
    throw new TokenInvalidError(
      'signature',
      'the lease token does not verify: signature verification failed',
    );
  }
  let claims: Record<string, unknown>;
  try {
    claims = decodeJsonSegment(payload);
  } catch (cause) {
    throw new TokenInvalidError('malformed', 'the lease token payload is not a JSON object', {
      cause,
    });
  }
  if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') {
    throw new TokenInvalidError('malformed', 'the lease token lacks a numeric exp or iat claim');
  }
  return claims as LeaseClaims;
}

/**
 * Checks `exp`, `nbf` and `iat` against `now` (ms), each with `toleranceMs` of clock difference.
 *
 * @throws TokenInvalidError with reason `expired` or `not-yet-valid`.
 */
export function checkLeaseTimes(claims: LeaseClaims, now: number, toleranceMs: number): void {
  if (claims.exp * 1000 < now - toleranceMs) {
    throw new TokenInvalidError(
      'expired',
      `the lease token expired at ${new Date(claims.exp * 1000).toISOString()}`,
    );
  }
  if (typeof claims.nbf === 'number' && claims.nbf * 1000 > now + toleranceMs) {
    throw new TokenInvalidError(
      'not-yet-valid',
      `the lease token is not valid before ${claims.nbf}`,
    );
  }
  if (claims.iat * 1000 > now + toleranceMs) {
    throw new TokenInvalidError(
      'not-yet-valid',
      `the lease token iat ${claims.iat} is in the future`,
    );
  }
}

/**
 * Checks that the token grants `item` (`<item>: true`), naming the service's error code when
 * the token carries one.
 *
 * @throws TokenInvalidError with reason `item`.
 */
export function checkLeaseItem(claims: LeaseClaims, item: string): void {
  if (claims[item] === true) return;
  const errorCode = claims[`${item}_errorCode`];
  throw new TokenInvalidError(
    'item',
    `the lease token does not grant ${item}${typeof errorCode === 'string' ? ` (${errorCode})` : ''}`,
  );
}
