import { loadJose } from '../crypto/load-jose.js';
import type { TrustedKey } from '../crypto/public-keys.js';
import { JwsError, verifyCompactJws } from '../crypto/verify-compact-jws.js';
import { ApiError } from '../http/api-error.js';
import { EVENT_JWS_ALGS } from './verify-event-jws.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="events"' };

function invalidToken(description: string): ApiError {
  return new ApiError(401, 'invalid_token', description, {
    'WWW-Authenticate': 'Bearer realm="events", error="invalid_token"',
  });
}

/**
 * Checks a feed read's `Authorization: Bearer <JWT>` through jose: RS256/RS384/RS512 (strict
 * base64url, no `crit` or `b64`), signed by one of `keys`, `exp` required and in the future,
 * `nbf` and `iat` numeric when present, and a claim named after the feed with value `true` or
 * `"*": true`. Rejects with 401 `unauthorized` (no header), 401 `invalid_token`, or 403
 * `forbidden` (valid token without a claim for this feed).
 *
 * @param feed - `<eventSourceId>` or `<eventObjectType>/<eventObjectId>`
 * @param nowMs - server time in milliseconds since the epoch
 * @example
 * await authorizeRead(request.headers.authorization, 'app-1', readerKeys, app.clock.now());
 */
export async function authorizeRead(
  authorization: string | undefined,
  feed: string,
  keys: readonly TrustedKey[],
  nowMs: number,
): Promise<void> {
  if (authorization === undefined || authorization.trim() === '') {
    throw new ApiError(401, 'unauthorized', 'Authorization: Bearer <JWT> is required', CHALLENGE);
  }
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
  if (!match) throw invalidToken('Expected Authorization: Bearer <JWT>');
  let claims: Record<string, unknown>;
  // Loaded with the first read to authorize, not at start (about 20 ms of a cold start).
  const { jwtVerify } = await loadJose();
  try {
    const verified = await verifyCompactJws(match[1]!, keys, {
      algorithms: EVENT_JWS_ALGS,
      verify: (token, key) =>
        jwtVerify(token, key, {
          algorithms: [...EVENT_JWS_ALGS],
          requiredClaims: ['exp'],
          currentDate: new Date(nowMs),
        }),
    });
    claims = verified.result.payload;
  } catch (err) {
    throw invalidToken(err instanceof JwsError ? err.message : 'The token is not valid');
  }
  if (claims[feed] !== true && claims['*'] !== true) {
    throw new ApiError(403, 'forbidden', `The token grants no access to feed ${feed}`);
  }
}
