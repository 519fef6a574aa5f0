import type { TrustedKey } from '../crypto/public-keys.js';
import { JwsError, verifyCompactJws } from '../crypto/verify-compact-jws.js';
import { ApiError } from '../http/api-error.js';

/** The claims the services use from a verified ID token. */
export interface IdTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  email?: string;
  [claim: string]: unknown;
}

/** Options of {@link createIdTokenVerifier}. Getters are read on every call. */
export interface IdTokenVerifierOptions {
  /** Keys trusted to sign ID tokens (a promise while a built-in key is still being made). */
  keys: () => readonly TrustedKey[] | Promise<readonly TrustedKey[]>;
  /** Required `iss` (read per call: the server learns its origin after listening). */
  issuer: () => string;
  /** Client id that `aud` must contain. */
  clientId: string;
  /** Current time in ms since the epoch. */
  now: () => number;
  /** Seconds a token stays acceptable after `exp` (standby 86 400, main 0). */
  graceSeconds: number;
  /** Verified tokens kept so repeat calls skip the RSA verify. Default 1024. */
  cacheSize?: number;
}

/** Verifies an ID token and resolves with its claims, or rejects with a 401 `invalid_token` ApiError. */
export type IdTokenVerifier = (token: string) => Promise<IdTokenClaims>;

/** How far `iat` may lie in the future, in seconds. */
const MAX_IAT_SKEW_SECONDS = 300;

function invalid(description: string): ApiError {
  return new ApiError(401, 'invalid_token', description);
}

async function verifySignature(
  token: string,
  keys: readonly TrustedKey[],
): Promise<Record<string, unknown>> {
  let payload: unknown;
  try {
    const verified = await verifyCompactJws(token, keys, { algorithms: ['RS256'] });
    payload = JSON.parse(Buffer.from(verified.payload).toString('utf8'));
  } catch (err) {
    if (err instanceof JwsError) {
      throw invalid(
        err.reason === 'unsupported_alg'
          ? 'The ID token must be signed with RS256'
          : err.reason === 'bad_signature'
            ? 'The ID token signature does not verify against a trusted key'
            : `The ID token is malformed: ${err.message}`,
      );
    }
    throw invalid('The ID token payload is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw invalid('The ID token payload is not a JSON object');
  }
  return payload as Record<string, unknown>;
}

/**
 * Creates an ID-token verifier. The JWS goes through jose (RS256 only, strict base64url, no
 * `crit` or `b64`, signature against the trusted keys); the claims are checked here on the
 * millisecond server clock, because the grace is exact (`now <= exp + grace`, where jose
 * compares whole seconds and excludes the bound): `iss`, `aud` containing the client id, `sub`,
 * `iat` at most 5 minutes ahead, `exp` plus the grace. Signatures are verified once per token
 * (a small cache); claims, expiry above all, on every call.
 *
 * @example
 * const verifyIdToken = createIdTokenVerifier({ keys: () => trusted, issuer: () => iss,
 *   clientId: 'mock-client', now: Date.now, graceSeconds: 86_400 });
 * const { sub } = await verifyIdToken(token);
 */
export function createIdTokenVerifier(options: IdTokenVerifierOptions): IdTokenVerifier {
  const cacheSize = options.cacheSize ?? 1024;
  const verified = new Map<string, Record<string, unknown>>();
  return async (token) => {
    let payload = verified.get(token);
    if (!payload) {
      payload = await verifySignature(token, await options.keys());
      // A full cache starts over: cheaper than LRU bookkeeping on the hot path.
      if (verified.size >= cacheSize) verified.clear();
      verified.set(token, payload);
    }
    const { iss, sub, aud, iat, exp } = payload;
    if (typeof iss !== 'string' || typeof sub !== 'string' || sub === '') {
      throw invalid('The ID token lacks iss or sub');
    }
    if (typeof iat !== 'number' || typeof exp !== 'number') {
      throw invalid('The ID token lacks iat or exp');
    }
    if (iss !== options.issuer()) throw invalid('The ID token has an untrusted issuer');
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.includes(options.clientId)) {
      throw invalid('The ID token audience does not contain the client id');
    }
    const nowSeconds = options.now() / 1000;
    if (iat > nowSeconds + MAX_IAT_SKEW_SECONDS) throw invalid('The ID token iat is in the future');
    if (nowSeconds > exp + options.graceSeconds) throw invalid('The ID token has expired');
    return payload as IdTokenClaims;
  };
}
