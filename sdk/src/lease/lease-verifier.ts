import { abortable } from '../internal/abortable.js';
import {
  type LeaseVerifierOptions,
  resolveLeaseVerifierOptions,
} from '../options/lease-verifier.js';
import type { LeaseClaims, LicensingService } from '../types.js';
import { readLeaseToken } from './lease-token.js';
import { createServiceKeys, type ServiceKeys } from './service-keys.js';
import { anchorsFor, parseTrustedRoots, watchRootExpiry } from './trusted-roots.js';
import { checkLeaseClaims, soleGrantedItem, verifySignedToken } from './verify-lease.js';

export type { RootExpiringInfo } from '../client-hooks.js';
export type { LeaseVerifierOptions } from '../options/lease-verifier.js';
export type { JwkSet, JwksLoader, LeaseClaims, TrustedRoot } from '../types.js';

/** Options of {@link LeaseVerifier.verify}. */
export interface VerifyLeaseOptions {
  /** Whose keys the token must be signed with. */
  service: LicensingService;
  /** The item the lease must grant (`<item>: true`). Default: the one item the token grants. */
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

/**
 * Creates a standalone {@link LeaseVerifier} (the licensing client has one built in): the same
 * decision as every checkout (`lease/verify-lease.ts`), with the JWK sets from `loadJwks`:
 * 1. the token's form: three strict base64url segments, `alg: RS256`, a `kid`;
 * 2. the JWK of that `kid`, trusted only once its `x5c` chain leads to one of `roots` and
 *    `x5c[0]` carries the JWK's `n` and `e` (a set is fetched again for a `kid` it lacks, at
 *    most once per `unknownKidCooldownMs`; keys it no longer lists stay trusted);
 * 3. every certificate of that chain valid now (± `clockToleranceMs`), the RS256 signature;
 * 4. the claims of a lease: `<item>: true`, a `jti` and a `lic`, numeric `iat` and `exp`, the
 *    times (± `clockToleranceMs`) and, with `hardwareId`, the `hw` claim.
 * Steady state costs one RSA verify: keys are checked once per JWK.
 *
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
  const {
    roots,
    loadJwks,
    now,
    clockToleranceMs: toleranceMs,
    unknownKidCooldownMs: cooldownMs,
    hardwareId,
    onRootExpiring,
  } = resolveLeaseVerifierOptions(options);
  const anchors = parseTrustedRoots(roots);
  const checkRootExpiry = watchRootExpiry(anchors, now, onRootExpiring);
  checkRootExpiry();
  const keys = new Map<LicensingService, ServiceKeys>();
  const fetches = new Map<LicensingService, Promise<void>>();

  const keysOf = (service: LicensingService): ServiceKeys => {
    let source = keys.get(service);
    if (!source) {
      source = createServiceKeys({ service, anchors: anchorsFor(anchors, service), cooldownMs });
      keys.set(service, source);
    }
    return source;
  };

  /** Fetches `service`'s set for `kid` unless it is trusted or was missed within the cooldown. */
  const fetchFor = async (service: LicensingService, kid: string, signal?: AbortSignal) => {
    const source = keysOf(service);
    if (source.find(kid) || !source.mayFetch(kid, now())) return;
    let fetch = fetches.get(service);
    if (!fetch) {
      fetch = (async () => {
        const jwks = await loadJwks(service);
        await source.merge(jwks, now());
      })().finally(() => fetches.delete(service));
      fetches.set(service, fetch);
    }
    await abortable(fetch, signal);
    source.fetchedFor(kid, now());
  };

  return {
    async verify(token, { service, item, signal }) {
      signal?.throwIfAborted();
      checkRootExpiry();
      const parsed = readLeaseToken(token);
      // The hot path holds the key: no fetch, no promise for it.
      if (!keysOf(service).find(parsed.kid)) await fetchFor(service, parsed.kid, signal);
      const claims = await verifySignedToken(parsed, keysOf(service), { at: now(), toleranceMs });
      return checkLeaseClaims(claims, { item: item ?? soleGrantedItem(claims), hardwareId });
    },
  };
}
