import { TokenInvalidError } from '../errors.js';
import { option } from '../internal/validate-option.js';
import type { RootExpiringInfo } from '../licensing-events.js';
import { DEFAULTS } from '../options.js';
import type { JwksLoader, LeaseClaims, LicensingService, TrustedRoot } from '../types.js';
import { assertPathValidAt, ChainError } from './certificate-chain.js';
import { createJwksCache } from './jwks-cache.js';
import {
  checkLeaseItem,
  checkLeaseTimes,
  readLeaseHeader,
  verifyLeaseSignature,
} from './lease-token-check.js';
import { parseTrustedRoots, watchRootExpiry } from './trusted-roots.js';

export type { RootExpiringInfo } from '../licensing-events.js';
export type { JwkSet, JwksLoader, LeaseClaims, TrustedRoot } from '../types.js';

/** Options of {@link LeaseVerifier.verify}. */
export interface VerifyLeaseOptions {
  /** Whose keys the token must be signed with. */
  service: LicensingService;
  /** The item the token must grant (`<item>: true`). Default: not checked. */
  item?: string;
  signal?: AbortSignal;
}

/**
 * Verifies lease JWTs from either service (see {@link createLeaseVerifier}). Verification
 * failures reject with a `TokenInvalidError` (code `TOKEN_INVALID`, `reason` naming the check);
 * failures to load a JWK set reject with the loader's own error (an outage, not a bad token).
 */
export interface LeaseVerifier {
  verify(token: string, options: VerifyLeaseOptions): Promise<LeaseClaims>;
}

/** Options of {@link createLeaseVerifier}. */
export interface LeaseVerifierOptions {
  /** The root certificates embedded in the app; at least one. */
  roots: TrustedRoot[];
  /** Fetches a service's JWK set. */
  loadJwks: JwksLoader;
  /** Clock in ms since the epoch. Default: `Date.now`. */
  now?: () => number;
  /** Allowed clock difference for `exp`, `iat`, `nbf` and certificate validity, in ms. Default: 60 000. */
  clockToleranceMs?: number;
  /**
   * After a JWKS refetch still lacks a `kid`, or its key failed the chain check, tokens with that
   * `kid` fail without another fetch for this long, in ms (so a stream of bad tokens cannot
   * hammer the service, while a corrected JWKS is picked up after it). Default: 30 000.
   */
  unknownKidCooldownMs?: number;
  /** Called once per root that is within 90 days of its expiry (or past it). Default: none. */
  onRootExpiring?: (info: RootExpiringInfo) => void;
}

/**
 * Creates the {@link LeaseVerifier} every lease token from either service goes through, the
 * spec's "Verifying license tokens" in order:
 * 1. the header says `alg: RS256` and carries a `kid` (checked before any key is touched);
 * 2. the JWK of that `kid` comes from `loadJwks(service)` and is trusted only once its `x5c`
 *    chain leads to one of `roots` (signatures, CA flags, keyCertSign) and `x5c[0]` carries the
 *    JWK's `n` and `e` (`lease/jwks-cache.ts`, `lease/signing-key-check.ts`);
 * 3. every certificate of that chain is valid now (± `clockToleranceMs`);
 * 4. the RS256 signature, `exp`/`nbf`/`iat` (± `clockToleranceMs`) and, when `item` is given,
 *    the `<item>: true` claim (`lease/lease-token-check.ts`).
 * Steady state costs one RSA verify: keys and chain results are cached per (service, kid, JWK).
 *
 * @param options `roots` (required), `loadJwks` (required), `now` (default `Date.now`),
 *   `clockToleranceMs` (default 60 000), `unknownKidCooldownMs` (default 30 000),
 *   `onRootExpiring` (called once per root within 90 days of expiry).
 * @throws LicensingError `INVALID_ARGUMENT` when a root is not a PEM certificate or none is
 *   given; InvalidOptionError for another bad option.
 * @example
 * const verifier = createLeaseVerifier({
 *   roots: [{ pem: EMBEDDED_ROOT_PEM, keyId: 'key-2025' }],
 *   loadJwks: (service, signal) => fetchJwks(service, signal),
 * });
 * const claims = await verifier.verify(token, { service: 'standby', item: 'ItemA' });
 */
export function createLeaseVerifier(options: LeaseVerifierOptions): LeaseVerifier {
  option.requireFn('loadJwks', options.loadJwks);
  const now = option.fn('now', options.now, Date.now);
  const onRootExpiring = option.fn<LeaseVerifierOptions['onRootExpiring']>(
    'onRootExpiring',
    options.onRootExpiring,
    undefined,
  );
  const toleranceMs = option.number(
    'clockToleranceMs',
    options.clockToleranceMs,
    DEFAULTS.trust.clockToleranceMs,
  );
  const cooldownMs = option.number(
    'unknownKidCooldownMs',
    options.unknownKidCooldownMs,
    DEFAULTS.trust.unknownKidCooldownMs,
  );
  const roots = parseTrustedRoots(options.roots);
  const checkRootExpiry = watchRootExpiry(roots, now, onRootExpiring);
  checkRootExpiry();
  const keys = createJwksCache({ loadJwks: options.loadJwks, anchors: roots, now, cooldownMs });

  return {
    async verify(token, { service, item, signal }) {
      signal?.throwIfAborted();
      checkRootExpiry();
      const { kid } = readLeaseHeader(token);
      const key = await keys.key(service, kid, signal);
      try {
        assertPathValidAt(key.validity, now(), toleranceMs);
      } catch (cause) {
        const reason = cause instanceof ChainError ? cause.failure : 'chain';
        const detail = cause instanceof Error ? cause.message : String(cause);
        throw new TokenInvalidError(reason, `the certificate chain of kid ${kid}: ${detail}`, {
          cause,
        });
      }
      const claims = await verifyLeaseSignature(token, key.verify);
      checkLeaseTimes(claims, now(), toleranceMs);
      if (item !== undefined) checkLeaseItem(claims, item);
      return claims;
    },
  };
}
