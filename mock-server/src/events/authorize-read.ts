import type { TrustedKey } from '../crypto/public-keys.js';
import { ApiError } from '../errors.js';
import { JwsError, parseCompactJws, verifyCompactJws } from './verify-jws.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="events"' };

function invalidToken(description: string): ApiError {
  return new ApiError(401, 'invalid_token', description, {
    'WWW-Authenticate': 'Bearer realm="events", error="invalid_token"',
  });
}

/**
 * Checks a feed read's `Authorization: Bearer <JWT>`: RS256/RS384/RS512, signed by one of
 * `keys`, unexpired `exp` (required; `nbf` honoured when present), and a claim named after the
 * feed with value `true` or `"*": true`. Throws 401 `unauthorized` (no header), 401
 * `invalid_token`, or 403 `forbidden` (valid token without a claim for this feed).
 *
 * @param feed - `<eventSourceId>` or `<eventObjectType>/<eventObjectId>`
 * @param nowMs - server time in milliseconds since the epoch
 */
export function authorizeRead(
  authorization: string | undefined,
  feed: string,
  keys: readonly TrustedKey[],
  nowMs: number,
): void {
  if (authorization === undefined || authorization.trim() === '') {
    throw new ApiError(401, 'unauthorized', 'Authorization: Bearer <JWT> is required', CHALLENGE);
  }
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
  if (!match) throw invalidToken('Expected Authorization: Bearer <JWT>');
  let claims: unknown;
  try {
    const jws = parseCompactJws(match[1]!);
    verifyCompactJws(jws, keys);
    claims = JSON.parse(jws.payloadText);
  } catch (err) {
    throw invalidToken(err instanceof JwsError ? err.message : 'The token payload is not JSON');
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw invalidToken('The token payload is not a JSON object');
  }
  const { exp, nbf } = claims as { exp?: unknown; nbf?: unknown };
  const now = nowMs / 1000;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw invalidToken('exp is required');
  if (now >= exp) throw invalidToken('The token has expired');
  if (nbf !== undefined && (typeof nbf !== 'number' || now < nbf)) {
    throw invalidToken('The token is not valid yet (nbf)');
  }
  const granted = claims as Record<string, unknown>;
  if (granted[feed] !== true && granted['*'] !== true) {
    throw new ApiError(403, 'forbidden', `The token grants no access to feed ${feed}`);
  }
}
