import { TokenInvalidError } from '../errors.js';
import type { LicensingService } from '../types.js';
import type { TrustAnchor } from './certificate-chain.js';
import { jwkFingerprint, type VerifiedKey, verifySigningKey } from './signing-key-check.js';

type Jwk = Record<string, unknown>;

/** What {@link createServiceKeys} needs. */
export interface ServiceKeysOptions {
  service: LicensingService;
  /** The roots embedded in the app. */
  anchors: readonly TrustAnchor[];
  /** How long a `kid` refused after a fetch stays refused before the next fetch for it, in ms. */
  cooldownMs: number;
  /** Added to a chain refusal's message: how to embed the service's current root. */
  embedHint?: string;
}

/**
 * The signing keys of one service that the app trusts: each JWK only once its `x5c` chain led to
 * an embedded root and `x5c[0]` carried its `n`/`e` (docs/protocol.md "Verifying a lease"). It
 * never fetches: the caller hands it what a service published (`merge`) or what the lease store
 * kept (`restore`), and a JWK set only ever adds or replaces keys by `kid`, so a bad answer can
 * never take a trusted key away.
 */
export interface ServiceKeys {
  readonly service: LicensingService;
  /** The trusted key of `kid`, or undefined (a kept key not checked yet included). */
  find(kid: string): VerifiedKey | undefined;
  /**
   * The key of `kid` that the lease store kept, checked now (on first use, so a start does no
   * crypto before its first request); undefined when none was kept or it fails the check.
   */
  trustKept(kid: string): Promise<VerifiedKey | undefined>;
  /**
   * Why `kid` has no trusted key: its JWK failed the check (`key`, `chain`, `modulus`, ...), or
   * the service published none (`kid`).
   */
  refusal(kid: string): TokenInvalidError;
  /**
   * Whether a fetch of the JWK set may find `kid`: true unless a fetch at most `cooldownMs` ago
   * already lacked it or refused its key (so a stream of bad tokens cannot hammer the service).
   */
  mayFetch(kid: string, now: number): boolean;
  /**
   * Checks every new or changed JWK of a set the service just published and trusts those that
   * pass; keys the set lacks stay trusted. Rejects only for a set that has no `keys` array.
   *
   * @returns true when a trusted key was added or replaced (worth saving).
   */
  merge(jwks: unknown, now: number): Promise<boolean>;
  /**
   * A set was just fetched for `kid` (at `now`): when it brought no trusted key for it, `kid` is
   * refused until the cooldown has passed.
   */
  fetchedFor(kid: string, now: number): void;
  /**
   * Takes the JWKs a lease store kept. None is trusted until checked again (a store can be
   * edited): `trustKept` checks one when a token needs it, and the checks of all of them start
   * at once in the background, off the path of the first request.
   */
  restore(jwks: readonly Jwk[]): void;
  /**
   * The JWKs to keep in the lease store: the trusted ones and the kept ones not checked yet or
   * being checked.
   */
  trusted(): Jwk[];
}

interface Trusted {
  jwk: Jwk;
  fingerprint: string;
  key: VerifiedKey;
}

interface Refusal {
  /** When the fetch that refused it happened, in ms. */
  at: number;
  error: TokenInvalidError;
  /** The refused JWK's fingerprint; absent when the set lacked the kid. */
  fingerprint?: string;
}

function noKeyMessage(service: LicensingService, kid: string): string {
  return `the ${service} service publishes no key with kid ${kid}. Check that ${service === 'main' ? 'mainUrl' : 'standbyUrl'} is the service that issued the token, or check the item out again.`;
}

function keysOf(jwks: unknown): Jwk[] {
  const keys = (jwks as { keys?: unknown } | null | undefined)?.keys;
  if (!Array.isArray(keys)) throw new TypeError('the JWK set has no keys array');
  return keys.filter(
    (jwk): jwk is Jwk =>
      typeof jwk === 'object' && jwk !== null && typeof jwk.kid === 'string' && jwk.kid !== '',
  );
}

/**
 * Creates the key source of one service (see {@link ServiceKeys}). Checking a JWK costs a chain
 * verification; one check runs per JWK content, and a JWK refused once is not checked again.
 *
 * @example
 * const keys = createServiceKeys({ service: 'standby', anchors, cooldownMs: 30_000 });
 * await keys.merge(await fetchJwks(), Date.now());
 * const key = keys.find(kid);
 */
export function createServiceKeys(options: ServiceKeysOptions): ServiceKeys {
  const { service, anchors, cooldownMs } = options;
  const trusted = new Map<string, Trusted>();
  const refused = new Map<string, Refusal>();
  /** The kids of the last set merged. */
  let lastPublished = new Set<string>();
  /** JWKs the lease store kept, by kid, until their check settles. */
  const kept = new Map<string, Jwk>();
  /** The checks of kept JWKs in flight, by kid (concurrent callers share one). */
  const trusting = new Map<string, Promise<VerifiedKey | undefined>>();
  /** Checks in flight by fingerprint, shared by concurrent merges of the same JWK. */
  const checking = new Map<string, Promise<VerifiedKey>>();

  const check = (jwk: Jwk, kid: string, fingerprint: string): Promise<VerifiedKey> => {
    let pending = checking.get(fingerprint);
    if (!pending) {
      pending = verifySigningKey(jwk, kid, anchors, {
        service,
        ...(options.embedHint === undefined ? {} : { embedHint: options.embedHint }),
      }).finally(() => checking.delete(fingerprint));
      checking.set(fingerprint, pending);
    }
    return pending;
  };

  /** Whether two JWKs carry the same public key (a re-issued certificate chain keeps it). */
  const sameKey = (a: Jwk, b: Jwk) => a.n === b.n && a.e === b.e;

  /** Trusts `jwk` if it passes; returns true when that changed the trusted set. */
  const consider = async (jwk: Jwk, now: number | undefined): Promise<boolean> => {
    const kid = jwk.kid as string;
    // A fetched set waits for the check of the key the store kept under this kid: it comes first.
    if (now !== undefined && (kept.has(kid) || trusting.has(kid))) await trustKept(kid);
    const fingerprint = jwkFingerprint(jwk);
    const held = () => trusted.get(kid);
    if (held()?.fingerprint === fingerprint) return false;
    // A trusted kid keeps its key: another key under its name (another service's key, renamed)
    // is a bad answer, and a bad answer never takes a trusted key away. Only a new certificate
    // chain for the same key replaces the JWK.
    const keepsItsKey = () => {
      const current = held();
      return current !== undefined && !sameKey(current.jwk, jwk);
    };
    if (keepsItsKey()) return false;
    const earlier = refused.get(kid);
    if (earlier?.fingerprint === fingerprint) {
      if (now !== undefined) refused.set(kid, { ...earlier, at: now });
      return false;
    }
    try {
      const key = await check(jwk, kid, fingerprint);
      if (keepsItsKey()) return false;
      trusted.set(kid, { jwk, fingerprint, key });
      kept.delete(kid);
      refused.delete(kid);
      return true;
    } catch (error) {
      if (!(error instanceof TokenInvalidError)) throw error;
      // A refused JWK never replaces a trusted one of the same kid: it only records why.
      if (now !== undefined) refused.set(kid, { at: now, error, fingerprint });
      return false;
    }
  };

  /** Checks the key the store kept under `kid` (once; concurrent callers share the check). */
  const trustKept = (kid: string): Promise<VerifiedKey | undefined> => {
    const inFlight = trusting.get(kid);
    if (inFlight) return inFlight;
    const jwk = kept.get(kid);
    if (jwk === undefined) return Promise.resolve(trusted.get(kid)?.key);
    // No refusal is recorded: a fetch may still bring a good key for this kid. The JWK stays
    // kept (and so saved by a write meanwhile) until its check has passed or failed.
    const pending = consider(jwk, undefined)
      .then(() => trusted.get(kid)?.key)
      .finally(() => {
        trusting.delete(kid);
        if (kept.get(kid) === jwk) kept.delete(kid);
      });
    trusting.set(kid, pending);
    return pending;
  };

  return {
    service,
    find: (kid) => trusted.get(kid)?.key,
    trustKept,
    refusal(kid) {
      return refused.get(kid)?.error ?? new TokenInvalidError('kid', noKeyMessage(service, kid));
    },
    mayFetch(kid, now) {
      const earlier = refused.get(kid);
      return earlier === undefined || now - earlier.at >= cooldownMs;
    },
    async merge(jwks, now) {
      const keys = keysOf(jwks);
      lastPublished = new Set(keys.map((jwk) => jwk.kid as string));
      const changes = await Promise.all(keys.map((jwk) => consider(jwk, now)));
      return changes.some(Boolean);
    },
    fetchedFor(kid, now) {
      // A JWK of `kid` in the last set was trusted or refused with its reason by `merge`.
      if (trusted.has(kid) || lastPublished.has(kid)) return;
      refused.set(kid, {
        at: now,
        error: new TokenInvalidError('kid', noKeyMessage(service, kid)),
      });
    },
    restore(jwks) {
      for (const jwk of jwks) {
        const kid = jwk?.kid;
        if (typeof kid === 'string' && kid !== '' && !trusted.has(kid)) kept.set(kid, jwk);
      }
      for (const kid of [...kept.keys()]) trustKept(kid).catch(() => undefined);
    },
    // A kid is never both kept and trusted: trusting a JWK removes the kept one of its kid.
    trusted: () => [...[...trusted.values()].map((entry) => entry.jwk), ...kept.values()],
  };
}
