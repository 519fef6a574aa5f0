import { verify } from 'node:crypto';
import type { TrustedKey } from '../crypto/public-keys.js';
import { ApiError } from '../errors.js';

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
  /** Keys trusted to sign ID tokens. */
  keys: () => readonly TrustedKey[];
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

/** Verifies an ID token and returns its claims, or throws a 401 `invalid_token` ApiError. */
export type IdTokenVerifier = (token: string) => IdTokenClaims;

/** How far `iat` may lie in the future, in seconds. */
const MAX_IAT_SKEW_SECONDS = 300;

function invalid(description: string): ApiError {
  return new ApiError(401, 'invalid_token', description);
}

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function verifySignature(token: string, keys: readonly TrustedKey[]): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[2]) throw invalid('The ID token is not a compact JWS');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeJson(headerPart);
  if (!isObject(header)) throw invalid('The ID token header is not JSON');
  if (header.alg !== 'RS256') throw invalid('The ID token must be signed with RS256');
  const payload = decodeJson(payloadPart);
  if (!isObject(payload)) throw invalid('The ID token payload is not a JSON object');
  const kid = typeof header.kid === 'string' ? header.kid : undefined;
  const candidates = kid ? keys.filter((k) => k.kid === undefined || k.kid === kid) : keys;
  const data = Buffer.from(`${headerPart}.${payloadPart}`);
  const signature = Buffer.from(signaturePart, 'base64url');
  for (const { key } of candidates) {
    if (key.asymmetricKeyType === 'rsa' && verify('sha256', data, key, signature)) return payload;
  }
  throw invalid('The ID token signature does not verify against a trusted key');
}

/**
 * Creates an ID-token verifier: RS256 only, signature against the trusted keys, `iss`, `aud`
 * containing the client id, `sub`, `iat` at most 5 minutes ahead, and `exp` plus the grace.
 * Signatures are checked once per token (a small cache); claims, expiry above all, on every call.
 *
 * @example
 * const verifyIdToken = createIdTokenVerifier({ keys: () => trusted, issuer: () => iss,
 *   clientId: 'mock-client', now: Date.now, graceSeconds: 86_400 });
 * const { sub } = verifyIdToken(token);
 */
export function createIdTokenVerifier(options: IdTokenVerifierOptions): IdTokenVerifier {
  const cacheSize = options.cacheSize ?? 1024;
  const verified = new Map<string, Record<string, unknown>>();
  return (token) => {
    let payload = verified.get(token);
    if (!payload) {
      payload = verifySignature(token, options.keys());
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
