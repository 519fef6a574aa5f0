import { LicensingError } from '../errors.js';
import { option } from '../internal/validate-option.js';
import type { ResolvedFeed } from './feed-selector.js';
import { loadSigning } from './load-signing.js';
import {
  type EventSigningAlgorithm,
  type PrivateKeyInput,
  resolveAlgorithm,
} from './signing-key.js';

/** A ready Bearer token for reading feeds, e.g. from your identity provider. */
export interface EventReadTokenProvider {
  /**
   * Returns the JWT to send as `Authorization: Bearer <token>`. Called before every request,
   * with the feed name (`<source>` or `<objectType>/<objectId>`); cache in it as you see fit.
   */
  token: (context: { feed: string }) => string | Promise<string>;
}

/** A private key from which the SDK signs short-lived read JWTs itself. */
export interface EventReadKey {
  /** RSA private key whose public key the event service trusts for reads. */
  privateKey: PrivateKeyInput;
  /** Signature algorithm. Default `'RS256'`. */
  alg?: EventSigningAlgorithm;
  /** `kid` header value, when the service picks keys by id. */
  kid?: string;
  /** Lifetime of each token (`exp` - `iat`), in ms. Default 300 000 (5 minutes); at least 10 000. */
  ttlMs?: number;
  /**
   * `'feed'` (default): each token claims only the feed read (`{ "<feed>": true }`);
   * `'all'`: one token claims every feed (`{ "*": true }`).
   */
  scope?: 'feed' | 'all';
  /** Extra claims to put in every token (e.g. `iss`, `sub`). */
  claims?: Record<string, unknown>;
}

/** How the event client authorizes reads: a token provider or a signing key. */
export type EventReadAuth = EventReadTokenProvider | EventReadKey;

/** Returns the Bearer token for a feed, or undefined to send no `Authorization` header. */
export type ReadTokenSource = (feed: ResolvedFeed) => Promise<string | undefined>;

const DEFAULT_TTL_MS = 300_000;

/**
 * Builds the token source of {@link EventReadAuth}. Signed tokens are cached per claim until
 * 75 % of their lifetime has passed; concurrent requests share one signing.
 */
export function createReadTokenSource(
  auth: EventReadAuth | undefined,
  now: () => number,
): ReadTokenSource {
  if (auth === undefined) return async () => undefined;
  if (typeof auth !== 'object' || auth === null) {
    option.fail('auth', 'Expected `auth` to be { token } or { privateKey }');
  }
  if ('token' in auth) {
    option.requireFn('auth.token', auth.token);
    return async (feed) => {
      const token = await auth.token({ feed: feed.name });
      if (typeof token !== 'string' || token.length === 0) {
        throw new LicensingError('UNAUTHORIZED', 'auth.token() returned no token');
      }
      return token;
    };
  }
  return createSignedTokenSource(auth, now);
}

function createSignedTokenSource(auth: EventReadKey, now: () => number): ReadTokenSource {
  const alg = resolveAlgorithm(auth.alg, 'auth.alg');
  const ttlMs = option.number('auth.ttlMs', auth.ttlMs, DEFAULT_TTL_MS, { min: 10_000 });
  if (auth.kid !== undefined && typeof auth.kid !== 'string') {
    option.fail('auth.kid', 'Expected `auth.kid` to be a string');
  }
  const scope = option.oneOf('auth.scope', auth.scope, ['feed', 'all'], 'feed');
  let key: Promise<CryptoKey> | undefined;
  const cache = new Map<string, { token: string; refreshAt: number }>();
  const inFlight = new Map<string, Promise<string>>();

  const sign = async (claim: string): Promise<string> => {
    // jose's signing code is loaded at first use (a lazy chunk for bundlers).
    const { importSigningKey, signJwt } = await loadSigning();
    key ??= importSigningKey(auth.privateKey, alg, 'auth.privateKey');
    const issuedAt = now();
    const token = await signJwt(
      { ...auth.claims, [claim]: true },
      { alg, typ: 'JWT', ...(auth.kid === undefined ? {} : { kid: auth.kid }) },
      { iat: Math.floor(issuedAt / 1000), exp: Math.floor((issuedAt + ttlMs) / 1000) },
      await key,
    );
    cache.set(claim, { token, refreshAt: issuedAt + ttlMs * 0.75 });
    return token;
  };

  return async (feed) => {
    const claim = scope === 'all' ? '*' : feed.name;
    const cached = cache.get(claim);
    if (cached && now() < cached.refreshAt) return cached.token;
    let pending = inFlight.get(claim);
    if (!pending) {
      pending = sign(claim).finally(() => inFlight.delete(claim));
      inFlight.set(claim, pending);
    }
    return pending;
  };
}
