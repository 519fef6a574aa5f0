// One service's signing keys, the one key source every lease decision asks (DECISIONS.md "Lease
// trust (third wave)" and "Trust while the app runs (fourth wave)"), shaped like jose's remote
// JWK set: it fetches the service's JWK set when a `kid` is missing, caches what it trusted,
// holds the cooldown, and checks a JWK's chain only when a token needs that very `kid`.
import { TokenInvalidError } from '../errors.js';
import { abortable } from '../internal/abortable.js';
import type { LicensingService } from '../types.js';
import type { TrustAnchor } from './certificate-chain.js';
import { jwkFingerprint, type VerifiedKey, verifySigningKey } from './signing-key-check.js';

type Jwk = Record<string, unknown>;

/** The most JWKs of one kid in a set that are checked (bounded work on a hostile set). */
export const MAX_CANDIDATES_PER_KID = 4;

/** What {@link createServiceKeys} needs. */
export interface ServiceKeysOptions {
  service: LicensingService;
  /** The roots embedded in the app that vouch for this service's keys. */
  anchors: readonly TrustAnchor[];
  /**
   * After a fetch of the JWK set brought no trusted key for a `kid` that was asked for, no other
   * fetch for an unknown `kid` happens for this long, in ms, whatever the `kid`.
   */
  cooldownMs: number;
  /** The clock of the cooldown, in ms since the epoch. */
  now: () => number;
  /** Added to a chain refusal's message: how to embed the service's current root. */
  embedHint?: string;
  /**
   * Fetches the service's JWK set; rejects with the service's outage. Without it the source
   * never fetches (it knows only the keys a lease store kept).
   */
  load?: (signal: AbortSignal) => Promise<unknown>;
  /**
   * The longest a lookup that fetches may take, the wait for the set and the check of the key
   * it was for together, in ms. Default: no limit of its own.
   */
  timeoutMs?: number;
  /** What a lookup that overran `timeoutMs` rejects with: the service's outage. */
  timeoutError?: () => unknown;
}

/** How {@link ServiceKeys.keyFor} may look a key up. */
export interface KeyLookup {
  signal?: AbortSignal | undefined;
  /** Fetch the JWK set when the `kid` is not held (and the cooldown allows). Default true. */
  fetch?: boolean;
}

/**
 * The signing keys of one service that the app trusts: each JWK only once its `x5c` chain led to
 * an embedded root and `x5c[0]` carried its `n`/`e` (docs/protocol.md "Verifying a lease"). A
 * JWK set only ever adds or replaces keys by `kid`, so a bad answer can never take a trusted key
 * away; a set of thousands of keys costs the one chain check a token needs.
 */
export interface ServiceKeys {
  readonly service: LicensingService;
  /** The trusted key of `kid`, or undefined: the hot path, without a promise. */
  find(kid: string): VerifiedKey | undefined;
  /**
   * The trusted key of `kid`: held already; else the key the lease store kept or the last
   * fetched set published under it, checked now; else, with `fetch`, the JWK set fetched (one
   * fetch at a time, shared) unless a fetch within `cooldownMs` already lacked a `kid` asked for.
   *
   * @throws TokenInvalidError why `kid` has no trusted key (`kid` when none is published, else
   *   the check that failed: `key`, `chain`, `modulus`...); the loader's outage when the fetch
   *   failed; `timeoutError()` past `timeoutMs`; the signal's reason when aborted.
   */
  keyFor(kid: string, lookup?: KeyLookup): Promise<VerifiedKey>;
  /**
   * Fetches the JWK set now, whatever the cooldown (a preflight), and returns the JWKs it
   * published; they are checked when a `kid` of theirs is asked for.
   */
  refresh(signal?: AbortSignal): Promise<Jwk[]>;
  /**
   * Takes the JWKs a lease store kept. None is trusted until checked again (a store can be
   * edited); each is checked when a token needs its `kid`.
   */
  restore(jwks: readonly Jwk[]): void;
  /** The JWKs to keep in the lease store: the trusted ones and the kept ones not checked yet. */
  trusted(): Jwk[];
}

interface Trusted {
  jwk: Jwk;
  fingerprint: string;
  key: VerifiedKey;
}

interface Refusal {
  /** The refused JWK's fingerprint. */
  fingerprint: string;
  error: TokenInvalidError;
}

function noKeyMessage(service: LicensingService, kid: string): string {
  return `the ${service} service publishes no key with kid ${kid}. Check that ${service === 'main' ? 'mainUrl' : 'standbyUrl'} is the service that issued the token, or check the item out again.`;
}

/** The JWKs of a set that carry a `kid`; throws for a set without a `keys` array. */
function keysOf(jwks: unknown): Jwk[] {
  const keys = (jwks as { keys?: unknown } | null | undefined)?.keys;
  if (!Array.isArray(keys)) throw new TypeError('the JWK set has no keys array');
  return keys.filter(
    (jwk): jwk is Jwk =>
      typeof jwk === 'object' && jwk !== null && typeof jwk.kid === 'string' && jwk.kid !== '',
  );
}

/** Whether two JWKs carry the same public key (a re-issued certificate chain keeps it). */
function sameKey(a: Jwk, b: Jwk): boolean {
  return a.n === b.n && a.e === b.e;
}

/**
 * Creates the key source of one service (see {@link ServiceKeys}).
 *
 * @example
 * const keys = createServiceKeys({
 *   service: 'standby',
 *   anchors,
 *   cooldownMs: 30_000,
 *   now: Date.now,
 *   load: (signal) => fetchJwks('standby', signal),
 * });
 * const key = keys.find(kid) ?? (await keys.keyFor(kid, { signal }));
 */
export function createServiceKeys(options: ServiceKeysOptions): ServiceKeys {
  const { service, anchors, cooldownMs, now, load } = options;
  const trusted = new Map<string, Trusted>();
  /** JWKs the lease store kept, by kid, not checked yet. */
  const kept = new Map<string, Jwk>();
  /**
   * JWKs the last fetched set published, by kid, not checked yet: the first
   * {@link MAX_CANDIDATES_PER_KID} under each kid, in the set's order (a set may publish a foreign
   * key under a genuine kid beside the genuine one; each is checked in turn until one passes).
   */
  let published = new Map<string, Jwk[]>();
  const refused = new Map<string, Refusal>();
  /** Checks in flight by kid (concurrent callers share one). */
  const checking = new Map<string, Promise<VerifiedKey | undefined>>();
  /** The JWKs of the last set fetched, as published. */
  let lastSet: Jwk[] = [];
  /** When a fetch last brought no trusted key for a kid asked for. */
  let missAt: number | undefined;
  let fetching: Promise<void> | undefined;

  /** Checks `jwk` for `kid` and trusts it when it passes; resolves the key `kid` has after. */
  const consider = async (kid: string, jwk: Jwk): Promise<VerifiedKey | undefined> => {
    const fingerprint = jwkFingerprint(jwk);
    const held = () => trusted.get(kid);
    // A trusted kid keeps its key: another key under its name (another service's key, renamed)
    // is a bad answer, and a bad answer never takes a trusted key away. Only a new certificate
    // chain for the same key may replace the JWK.
    const keepsItsKey = () => {
      const current = held();
      return (
        current !== undefined && (current.fingerprint === fingerprint || !sameKey(current.jwk, jwk))
      );
    };
    if (keepsItsKey() || refused.get(kid)?.fingerprint === fingerprint) return held()?.key;
    try {
      const key = await verifySigningKey(jwk, kid, anchors, {
        service,
        ...(options.embedHint === undefined ? {} : { embedHint: options.embedHint }),
      });
      if (!keepsItsKey()) {
        trusted.set(kid, { jwk, fingerprint, key });
        refused.delete(kid);
      }
    } catch (error) {
      if (!(error instanceof TokenInvalidError)) throw error;
      refused.set(kid, { fingerprint, error });
    }
    return held()?.key;
  };

  /**
   * The key of `kid` after checking its candidates: the one the store kept first, then those the
   * last set published, until one is trusted. A candidate leaves once checked, trusted or refused.
   */
  const settle = (kid: string): Promise<VerifiedKey | undefined> => {
    const inFlight = checking.get(kid);
    if (inFlight) return inFlight;
    const candidates = [kept.get(kid), ...(published.get(kid) ?? [])].filter(
      (jwk): jwk is Jwk => jwk !== undefined,
    );
    if (candidates.length === 0) return Promise.resolve(trusted.get(kid)?.key);
    const pending = (async () => {
      for (const jwk of candidates) {
        try {
          const key = await consider(kid, jwk);
          if (key) return key;
        } finally {
          if (kept.get(kid) === jwk) kept.delete(kid);
          const left = published.get(kid)?.filter((other) => other !== jwk);
          if (left?.length) published.set(kid, left);
          else published.delete(kid);
        }
      }
      return trusted.get(kid)?.key;
    })().finally(() => checking.delete(kid));
    checking.set(kid, pending);
    return pending;
  };

  /** One fetch of the set at a time, shared by every caller (none can abort it for the others). */
  const fetchSet = (): Promise<void> => {
    if (!load) return Promise.reject(new TypeError('this key source has no JWK set to fetch'));
    fetching ??= (async () => {
      const jwks = keysOf(await load(new AbortController().signal));
      lastSet = jwks;
      published = new Map();
      for (const jwk of jwks) {
        const same = published.get(jwk.kid as string) ?? [];
        if (same.length < MAX_CANDIDATES_PER_KID) published.set(jwk.kid as string, [...same, jwk]);
      }
      // A trusted kid republished with a new chain for its key: checked now, so an expiring
      // certificate can be replaced (only trusted kids: bounded by what the app already holds).
      await Promise.all(
        [...trusted.keys()].filter((kid) => published.has(kid)).map((kid) => settle(kid)),
      );
    })().finally(() => {
      fetching = undefined;
    });
    return fetching;
  };

  /** Runs `work` within `timeoutMs`, rejecting with `timeoutError()` past it. */
  const withinBudget = async <T>(work: Promise<T>): Promise<T> => {
    const { timeoutMs, timeoutError } = options;
    if (timeoutMs === undefined) return work;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timeoutError?.() ?? new Error('timed out')), timeoutMs);
    });
    try {
      return await Promise.race([work, overrun]);
    } finally {
      clearTimeout(timer);
    }
  };

  const refusal = (kid: string): TokenInvalidError =>
    refused.get(kid)?.error ?? new TokenInvalidError('kid', noKeyMessage(service, kid));

  const mayFetch = () =>
    load !== undefined && (missAt === undefined || now() - missAt >= cooldownMs);

  return {
    service,
    find: (kid) => trusted.get(kid)?.key,
    async keyFor(kid, lookup = {}) {
      const { signal, fetch = true } = lookup;
      signal?.throwIfAborted();
      const held = trusted.get(kid)?.key ?? (await abortable(settle(kid), signal));
      if (held) return held;
      if (!fetch || !mayFetch()) throw refusal(kid);
      const fetched = await abortable(withinBudget(fetchSet().then(() => settle(kid))), signal);
      if (fetched) return fetched;
      missAt = now();
      throw refusal(kid);
    },
    async refresh(signal) {
      await abortable(fetchSet(), signal);
      return lastSet;
    },
    restore(jwks) {
      for (const jwk of jwks) {
        const kid = jwk?.kid;
        if (typeof kid === 'string' && kid !== '' && !trusted.has(kid)) kept.set(kid, jwk);
      }
    },
    // A kid is never both kept and trusted: trusting a JWK removes the kept one of its kid.
    trusted: () => [...[...trusted.values()].map((entry) => entry.jwk), ...kept.values()],
  };
}
