import { isLicensingError, LicensingError } from '../errors.js';
import { abortable } from '../internal/abortable.js';
import { formatTime } from '../internal/format-time.js';
import { readJwtClaims } from '../internal/jwt-claims.js';
import {
  type IdTokenSourceOptions,
  type ResolvedIdTokenSourceOptions,
  resolveIdTokenSourceOptions,
} from '../options/id-token-source.js';
import type { IdTokenResult, IdTokenStore, LicensingService } from '../types.js';
import { isWithinGrace } from './id-token-grace.js';
import { createMemoryIdTokenStore } from './memory-id-token-store.js';

export type { IdTokenSourceOptions } from '../options/id-token-source.js';
export type { IdTokenResult, IdTokenStore } from '../types.js';

/**
 * Supplies ID tokens for the `IdToken` scheme: checks `exp` before each use, asks the app's
 * provider again when expired (one shared in-flight refresh), keeps the last good token in a
 * store, and falls back to it within the grace for the standby.
 */
export interface IdTokenSource {
  /**
   * A token for `service`: the cached one while unexpired, else the provider's. When the provider
   * gives no usable token (the `reason` of its error says why: `id-token-provider-failed` (it
   * threw), `id-token-provider-timeout`, `id-token-malformed` (not a JWT with a numeric `exp`),
   * `id-token-expired` (it returned an expired token)), the last good token is sent anyway: to
   * `'main'` as it is (main decides whether it still accepts it), to `'standby'` while
   * `now <= exp + graceMs` (past that: code ID_TOKEN_EXPIRED). With no token at all it rejects:
   * `SERVICE_UNAVAILABLE` when the provider could not be reached, else `UNAUTHORIZED`.
   * `forceRefresh` (after a 401) asks the provider even for an unexpired cached token and
   * rejects with the provider's error when it gives none.
   */
  get(
    service: LicensingService,
    options?: { signal?: AbortSignal; forceRefresh?: boolean },
  ): Promise<IdTokenResult>;
  /** The last good token's `exp` in ms, or undefined (read-only state getter). */
  readonly expiresAt: number | undefined;
}

interface CachedToken {
  token: string;
  /** `exp` in ms since the epoch. */
  expiresAt: number;
}

/**
 * Reads `exp` (in ms) from a JWT without verifying it: the SDK only forwards the ID token, the
 * licensing service is the relying party. Undefined when the text is not a JWT with a numeric `exp`.
 */
function readExpiry(token: unknown): CachedToken | undefined {
  if (typeof token !== 'string') return undefined;
  const trimmed = token.trim();
  const exp = readJwtClaims(trimmed)?.exp;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return undefined;
  return { token: trimmed, expiresAt: exp * 1000 };
}

class DefaultIdTokenSource implements IdTokenSource {
  readonly #provider: () => string | Promise<string>;
  readonly #store: IdTokenStore;
  readonly #now: () => number;
  readonly #graceMs: number;
  readonly #skewMs: number;
  readonly #onStoreError: (error: unknown) => void;
  readonly #providerTimeoutMs: number;
  readonly #providerRetryMs: number;
  /** The last provider failure and when it happened, until a call succeeds. */
  #failure: { error: unknown; at: number } | undefined;
  #current: CachedToken | undefined;
  #loaded: Promise<void> | undefined;
  #inflight: Promise<CachedToken> | undefined;
  /** Sequence number of the last provider call started, and of the last one applied. */
  #started = 0;
  #applied = 0;

  constructor(options: ResolvedIdTokenSourceOptions) {
    this.#provider = options.provider;
    this.#store = options.store ?? createMemoryIdTokenStore();
    this.#now = options.now;
    this.#graceMs = options.graceMs;
    this.#skewMs = options.refreshSkewMs;
    this.#onStoreError = options.onStoreError;
    this.#providerTimeoutMs = options.providerTimeoutMs;
    this.#providerRetryMs = options.providerRetryMs;
  }

  get expiresAt(): number | undefined {
    return this.#current?.expiresAt;
  }

  async get(
    service: LicensingService,
    options: { signal?: AbortSignal; forceRefresh?: boolean } = {},
  ): Promise<IdTokenResult> {
    const { signal, forceRefresh = false } = options;
    signal?.throwIfAborted();
    await abortable(this.#ensureLoaded(), signal);

    const cached = this.#current;
    if (cached && !forceRefresh && this.#now() < cached.expiresAt - this.#skewMs) {
      return { token: cached.token, inGrace: false, expiresAt: cached.expiresAt };
    }

    // Within the cooldown after a provider failure the last good token is used, so a provider down
    // with main does not slow every call. The provider is asked at once all the same when a
    // service just refused that token (`forceRefresh`, after main's 401: a service answers again),
    // and whenever there is no token to fall back on (the call could not go out without one: an
    // app restarted offline recovers at its next call once the sign-in answers, not after the
    // cooldown).
    const failure = this.#failure;
    if (failure && cached && !forceRefresh && this.#now() - failure.at < this.#providerRetryMs) {
      return this.#fallback(service, failure.error, forceRefresh);
    }
    let fresh: CachedToken;
    try {
      fresh = await abortable(this.#withTimeout(this.#refresh()), signal);
      this.#failure = undefined;
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      this.#failure = { error, at: this.#now() };
      return this.#fallback(service, error, forceRefresh);
    }
    if (this.#now() < fresh.expiresAt) {
      return { token: fresh.token, inGrace: false, expiresAt: fresh.expiresAt };
    }
    const expired = new LicensingError(
      'UNAUTHORIZED',
      `the ID-token provider returned a token that expired at ${formatTime(fresh.expiresAt)}. Check the identity provider (auth.idToken) and the system clock.`,
      { reason: 'id-token-expired' },
    );
    return this.#fallback(service, expired, forceRefresh);
  }

  /** Rejects when the provider has not answered within `providerTimeoutMs`. */
  #withTimeout(call: Promise<CachedToken>): Promise<CachedToken> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new LicensingError(
              'UNAUTHORIZED',
              `the ID-token provider did not answer within ${this.#providerTimeoutMs} ms. Check the identity provider, or raise auth.providerTimeoutMs.`,
              { reason: 'id-token-provider-timeout' },
            ),
          ),
        this.#providerTimeoutMs,
      );
    });
    return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
  }

  /** Loads the store once, on first use; a token already obtained from the provider wins. */
  #ensureLoaded(): Promise<void> {
    this.#loaded ??= (async () => {
      let stored: string | undefined;
      try {
        stored = await this.#store.load();
      } catch (error) {
        this.#onStoreError(error);
        return;
      }
      const parsed = readExpiry(stored);
      if (parsed && this.#current === undefined) this.#current = parsed;
    })();
    return this.#loaded;
  }

  /** One shared provider call; its token is applied to the cache and the store. */
  #refresh(): Promise<CachedToken> {
    if (this.#inflight) return this.#inflight;
    const seq = ++this.#started;
    const call = (async () => {
      let raw: unknown;
      try {
        raw = await this.#provider();
      } catch (cause) {
        const detail = cause instanceof Error ? `: ${cause.message.replace(/\.$/, '')}` : '';
        throw new LicensingError(
          'UNAUTHORIZED',
          `the ID-token provider failed${detail}. Check the app's sign-in (auth.idToken) and the identity provider.`,
          {
            cause,
            reason: 'id-token-provider-failed',
          },
        );
      }
      const parsed = readExpiry(raw);
      if (!parsed) {
        throw new LicensingError(
          'UNAUTHORIZED',
          'the ID-token provider returned something that is not a JWT with a numeric exp claim. Check that auth.idToken returns the ID token itself (a JWT), not an access token or an object.',
          { reason: 'id-token-malformed' },
        );
      }
      await this.#apply(parsed, seq);
      return parsed;
    })();
    this.#inflight = call;
    const clear = () => {
      if (this.#inflight === call) this.#inflight = undefined;
    };
    call.then(clear, clear);
    return call;
  }

  async #apply(next: CachedToken, seq: number): Promise<void> {
    // A call that finished after a later one was applied is stale.
    if (seq < this.#applied) return;
    const current = this.#current;
    // An expired token never replaces a newer one: the grace fallback needs the latest exp.
    const usable = this.#now() < next.expiresAt;
    if (current && !usable && next.expiresAt < current.expiresAt) return;
    this.#applied = seq;
    this.#current = next;
    try {
      await this.#store.save(next.token);
    } catch (error) {
      this.#onStoreError(error);
    }
  }

  /**
   * What to send when the provider gave no usable token: the cached one, for main even expired
   * (main decides, the SDK never skips it), for the standby within its grace. With nothing cached
   * nothing can be sent at all. After a service refused the cached token (`forceRefresh`), the
   * provider's failure is the answer.
   */
  #fallback(service: LicensingService, error: unknown, forceRefresh: boolean): IdTokenResult {
    const providerError = isLicensingError(error)
      ? error
      : new LicensingError(
          'UNAUTHORIZED',
          "the ID-token provider failed. Check the app's sign-in (auth.idToken) and the identity provider.",
          {
            cause: error,
            reason: 'id-token-provider-failed',
          },
        );
    const cached = this.#current;
    if (!cached) throw noTokenAtAll(providerError);
    if (forceRefresh) throw providerError;
    const now = this.#now();
    if (now < cached.expiresAt || service === 'main') {
      return { token: cached.token, inGrace: false, expiresAt: cached.expiresAt };
    }
    if (isWithinGrace(cached.expiresAt, now, this.#graceMs)) {
      return { token: cached.token, inGrace: true, expiresAt: cached.expiresAt };
    }
    throw new LicensingError(
      'ID_TOKEN_EXPIRED',
      `the last ID token expired at ${formatTime(cached.expiresAt)}, more than ${this.#graceMs} ms ago, and no fresh one could be obtained. Sign the user in again (auth.idToken).`,
      { cause: providerError },
    );
  }
}

/** Provider failures that mean "could not reach it", not "it answered wrong". */
const PROVIDER_UNREACHABLE = new Set(['id-token-provider-failed', 'id-token-provider-timeout']);

/**
 * The error when no token at all can be had: an unreachable provider is `SERVICE_UNAVAILABLE`
 * (nothing could be called; try again later), a provider that answered with something unusable
 * is `UNAUTHORIZED` (the user must sign in again). Either way the call ends: no failover.
 */
function noTokenAtAll(providerError: LicensingError): LicensingError {
  const unreachable =
    providerError.reason !== undefined && PROVIDER_UNREACHABLE.has(providerError.reason);
  if (!unreachable) return providerError;
  return new LicensingError(
    'SERVICE_UNAVAILABLE',
    `No ID token to send: ${providerError.message.replace(/\. Check .*$/, '')}, and none was kept from before. Check the app's sign-in (auth.idToken) and the identity provider.`,
    { cause: providerError, reason: providerError.reason! },
  );
}

/**
 * Creates the {@link IdTokenSource} behind the `IdToken` scheme: it decodes `exp` (without
 * verifying: the licensing service is the relying party), asks `provider` again when the token
 * is expired (one shared in-flight call for concurrent callers), keeps the last good token in
 * `store` (loaded lazily on first use, so an app restarted mid-outage still has it), and lets the
 * standby use that token while `now <= exp + graceMs` when the provider cannot give a fresh one.
 *
 * @param options `provider` (required), `store` (default memory), `now` (default `Date.now`),
 *   `graceMs` (default 86 400 000, at most that), `refreshSkewMs` (default 30 000),
 *   `providerTimeoutMs` (default 10 000), `providerRetryMs` (default 30 000), `onStoreError`.
 * @throws InvalidOptionError (code INVALID_ARGUMENT) when an option has the wrong type or range.
 * @example
 * const idTokens = createIdTokenSource({ provider: () => oidc.getIdToken() });
 * const { token, inGrace } = await idTokens.get('standby');
 */
export function createIdTokenSource(options: IdTokenSourceOptions): IdTokenSource {
  return new DefaultIdTokenSource(resolveIdTokenSourceOptions(options));
}

/** An {@link IdTokenSource} from options already resolved (the licensing client's `auth`). */
export function createResolvedIdTokenSource(options: ResolvedIdTokenSourceOptions): IdTokenSource {
  return new DefaultIdTokenSource(options);
}
