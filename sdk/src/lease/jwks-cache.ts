import { TokenInvalidError } from '../errors.js';
import { abortable } from '../internal/abortable.js';
import type { JwkSet, JwksLoader, LicensingService } from '../types.js';
import type { TrustAnchor } from './certificate-chain.js';
import { jwkFingerprint, type VerifiedKey, verifySigningKey } from './signing-key-check.js';

type Jwk = Record<string, unknown>;

/** Options of {@link createJwksCache}. */
export interface JwksCacheOptions {
  loadJwks: JwksLoader;
  anchors: readonly TrustAnchor[];
  now: () => number;
  /** How long a refused `kid` stays refused without a refetch, in ms. */
  cooldownMs: number;
}

/** The signing keys of both services, each trusted only once its chain verified. */
export interface JwksCache {
  /**
   * The verified key of `kid` on `service`. Loads the service's JWK set on first use and again
   * for a `kid` it does not know or whose key was refused (at most once per `cooldownMs` per
   * `kid`). Loader failures propagate unchanged: they are outages, not token failures.
   *
   * @throws TokenInvalidError with reason `kid`, `key`, `chain`, `certificate-*` or `modulus`.
   */
  key(service: LicensingService, kid: string, signal?: AbortSignal): Promise<VerifiedKey>;
}

/** Why a `kid` was refused, and against which fetched set. */
interface Refusal {
  at: number;
  error: TokenInvalidError;
  /** The published set the refusal was made against: a newer set is looked at again at once. */
  set: Map<string, Jwk> | undefined;
  /** The refused JWK's fingerprint (absent when the kid was missing). */
  fingerprint?: string;
}

interface ServiceKeys {
  /** The last JWK set loaded, by kid (raw: nothing in it is trusted yet). */
  published: Map<string, Jwk> | undefined;
  load: { promise: Promise<Map<string, Jwk>>; signal: AbortSignal | undefined } | undefined;
  /** Keys whose chain verified, or is being verified (one shared check per JWK content). */
  keys: Map<string, { jwk: Jwk; fingerprint: string; verified: Promise<VerifiedKey> }>;
  refused: Map<string, Refusal>;
}

function indexByKid(jwks: unknown): Map<string, Jwk> {
  const keys = (jwks as JwkSet | undefined)?.keys;
  if (!Array.isArray(keys)) throw new TypeError('the JWK set has no keys array');
  const byKid = new Map<string, Jwk>();
  for (const jwk of keys) {
    if (jwk && typeof jwk === 'object' && typeof jwk.kid === 'string' && !byKid.has(jwk.kid)) {
      byKid.set(jwk.kid, jwk);
    }
  }
  return byKid;
}

/**
 * Creates the JWKS cache behind the lease verifier (jose `jwks/remote.ts`, with the spec's
 * certificate chain on top). A JWK becomes trusted only after its `x5c` chain verified up to an
 * embedded root; a refused or unknown `kid` is looked up again once its cooldown has passed (or
 * at once when a newer set was loaded meanwhile), so one bad JWKS answer never keeps a later good
 * one out. Steady state: a map lookup, no fetch, no chain check.
 */
export function createJwksCache(options: JwksCacheOptions): JwksCache {
  const { loadJwks, anchors, now, cooldownMs } = options;
  const services = new Map<LicensingService, ServiceKeys>();

  const stateOf = (service: LicensingService): ServiceKeys => {
    let state = services.get(service);
    if (!state) {
      state = { published: undefined, load: undefined, keys: new Map(), refused: new Map() };
      services.set(service, state);
    }
    return state;
  };

  /** One load per service at a time; the last good set is kept when a load fails. */
  async function load(
    service: LicensingService,
    state: ServiceKeys,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, Jwk>> {
    let current = state.load;
    if (!current) {
      const promise = (async () => {
        try {
          const byKid = indexByKid(await loadJwks(service, signal));
          state.published = byKid;
          return byKid;
        } finally {
          state.load = undefined;
        }
      })();
      current = { promise, signal };
      state.load = current;
    }
    try {
      return await abortable(current.promise, signal);
    } catch (error) {
      // The shared load was cancelled by the caller that started it, not by us: load anew.
      if (current.signal !== signal && current.signal?.aborted && !signal?.aborted) {
        return load(service, state, signal);
      }
      throw error;
    }
  }

  function refuse(state: ServiceKeys, kid: string, refusal: Omit<Refusal, 'at'>): never {
    state.refused.set(kid, { ...refusal, at: now() });
    throw refusal.error;
  }

  function verify(state: ServiceKeys, kid: string, jwk: Jwk, fingerprint: string) {
    const existing = state.keys.get(kid);
    if (existing?.fingerprint === fingerprint) {
      existing.jwk = jwk;
      return existing.verified;
    }
    const verified = verifySigningKey(jwk, kid, anchors);
    state.keys.set(kid, { jwk, fingerprint, verified });
    verified.then(
      () => state.refused.delete(kid),
      (error: unknown) => {
        if (state.keys.get(kid)?.verified === verified) state.keys.delete(kid);
        if (error instanceof TokenInvalidError) {
          state.refused.set(kid, { at: now(), error, set: state.published, fingerprint });
        }
      },
    );
    return verified;
  }

  async function lookUp(
    service: LicensingService,
    state: ServiceKeys,
    kid: string,
    signal: AbortSignal | undefined,
  ): Promise<VerifiedKey> {
    const published = state.published?.get(kid);
    const refusal = state.refused.get(kid);
    const nothingNew = refusal !== undefined && refusal.set === state.published;
    if (nothingNew && now() - refusal.at < cooldownMs) throw refusal.error;

    let jwk = published;
    if (!jwk || nothingNew) {
      const fresh = await load(service, state, signal);
      jwk = fresh.get(kid);
      if (!jwk) {
        refuse(state, kid, {
          error: new TokenInvalidError(
            'kid',
            `the ${service} service publishes no key with kid ${kid}`,
          ),
          set: fresh,
        });
      }
    }
    const fingerprint = jwkFingerprint(jwk);
    // The same JWK that failed its check before: refused again without another check.
    if (refusal?.fingerprint === fingerprint) {
      refuse(state, kid, { ...refusal, set: state.published });
    }
    return abortable(verify(state, kid, jwk, fingerprint), signal);
  }

  return {
    key(service, kid, signal) {
      const state = stateOf(service);
      const entry = state.keys.get(kid);
      // Hot path: the very JWK object of the current set, already verified (no extra await).
      if (entry && state.published?.get(kid) === entry.jwk)
        return abortable(entry.verified, signal);
      return lookUp(service, state, kid, signal);
    },
  };
}
