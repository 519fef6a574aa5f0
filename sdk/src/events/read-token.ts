import { LicensingError } from '../errors.js';
import type { ResolvedReadAuth } from '../options/event-client.js';
import type { ResolvedFeed } from './feed-selector.js';
import { loadSigning } from './load-signing.js';

/** Returns the Bearer token for a feed, or undefined to send no `Authorization` header. */
export type ReadTokenSource = (feed: ResolvedFeed) => Promise<string | undefined>;

/**
 * Builds the token source of the client's read authorization (resolved options). Signed tokens
 * are cached per claim until 75 % of their lifetime has passed; concurrent requests share one
 * signing.
 */
export function createReadTokenSource(
  auth: ResolvedReadAuth | undefined,
  now: () => number,
): ReadTokenSource {
  if (auth === undefined) return async () => undefined;
  if (auth.kind === 'token') {
    return async (feed) => {
      const token = await auth.token({ feed: feed.name });
      if (typeof token !== 'string' || token.length === 0) {
        throw new LicensingError(
          'UNAUTHORIZED',
          'auth.token() returned no token. Check that it returns a read token for the event service.',
        );
      }
      return token;
    };
  }
  return createSignedTokenSource(auth, now);
}

function createSignedTokenSource(
  auth: Extract<ResolvedReadAuth, { kind: 'key' }>,
  now: () => number,
): ReadTokenSource {
  const { alg, ttlMs, scope } = auth;
  let key: Promise<CryptoKey> | undefined;
  const cache = new Map<string, { token: string; refreshAt: number }>();
  const inFlight = new Map<string, Promise<string>>();

  const sign = async (claim: string): Promise<string> => {
    // The signing code is loaded at first use (a lazy chunk for bundlers).
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
