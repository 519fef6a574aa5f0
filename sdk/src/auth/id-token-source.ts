// CONTRACT between the SDK helpers: the types below are fixed; the implementation
// (createIdTokenSource) is built by the auth/verify helper in this file.
import { decodeJwt } from 'jose';
import { isLicensingError, LicensingError } from '../errors.js';
import { abortable } from '../internal/abortable.js';
import { validateDurationOption, validateFunctionOption } from '../internal/validate-option.js';
import { createMemoryIdTokenStore } from './memory-id-token-store.js';

/** Where the last good ID token is kept so an app restarted mid-outage still has it. */
export interface IdTokenStore {
  /** The stored token, or undefined when none. */
  load(): Promise<string | undefined>;
  /** Replaces the stored token. */
  save(token: string): Promise<void>;
  /** Forgets the stored token. */
  clear(): Promise<void>;
}

/** A token ready to send, and whether it is being used within the standby's 24-hour grace. */
export interface IdTokenResult {
  token: string;
  /** True when `token` is expired and only the standby's grace lets it through. */
  inGrace: boolean;
  /** The token's `exp`, in ms since the epoch. */
  expiresAt: number;
}

/**
 * Supplies ID tokens for the `IdToken` scheme: checks `exp` before each use, asks the app's
 * provider again when expired (one shared in-flight refresh), keeps the last good token in a
 * store, and falls back to it within the grace for the standby.
 */
export interface IdTokenSource {
  /**
   * A token for `service`. For `'main'` it must be unexpired (else the provider is asked; a
   * provider failure rejects with the provider's error as cause, code UNAUTHORIZED). For
   * `'standby'` a provider failure falls back to the last good token while
   * `now <= exp + graceMs`; past that it rejects with code ID_TOKEN_EXPIRED.
   * `forceRefresh` asks the provider even if the cached token is unexpired (after a 401).
   */
  get(
    service: 'main' | 'standby',
    options?: { signal?: AbortSignal; forceRefresh?: boolean },
  ): Promise<IdTokenResult>;
  /** The last good token's `exp` in ms, or undefined (read-only state getter). */
  readonly expiresAt: number | undefined;
}

/** Options of {@link createIdTokenSource}. */
export interface IdTokenSourceOptions {
  /** The app's ID-token provider (e.g. its OIDC client's silent refresh). Called only when needed. */
  provider: () => string | Promise<string>;
  /** Where the last good token is kept. Default: memory only ({@link createMemoryIdTokenStore}). */
  store?: IdTokenStore;
  /** Clock in ms since the epoch. Default: `Date.now`. */
  now?: () => number;
  /** How long after `exp` the standby still accepts a token, in ms. Default: 86 400 000 (24 h). */
  graceMs?: number;
  /** A token counts as expired this many ms before its `exp`, to cover clock skew and latency. Default: 30 000. */
  refreshSkewMs?: number;
  /** Called when the store fails to load or save (the source carries on in memory). Default: ignore. */
  onStoreError?: (error: unknown) => void;
  /**
   * How long a caller waits for the provider before treating it as failed, in ms (the call goes
   * on, and a token it returns later is kept). Default: 10 000.
   */
  providerTimeoutMs?: number;
  /**
   * After the provider fails, how long to use the fallback without asking it again, in ms, so an
   * identity provider that is down with the main service does not slow every standby call.
   * Default: 30 000.
   */
  providerRetryMs?: number;
}

const DEFAULT_GRACE_MS = 86_400_000;
const DEFAULT_REFRESH_SKEW_MS = 30_000;
const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
const DEFAULT_PROVIDER_RETRY_MS = 30_000;

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
  try {
    const { exp } = decodeJwt(trimmed);
    if (typeof exp !== 'number' || !Number.isFinite(exp)) return undefined;
    return { token: trimmed, expiresAt: exp * 1000 };
  } catch {
    return undefined;
  }
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

  constructor(options: IdTokenSourceOptions) {
    validateFunctionOption('provider', options.provider);
    if (options.now !== undefined) validateFunctionOption('now', options.now);
    this.#provider = options.provider;
    this.#store = options.store ?? createMemoryIdTokenStore();
    this.#now = options.now ?? Date.now;
    this.#graceMs = validateDurationOption('graceMs', options.graceMs ?? DEFAULT_GRACE_MS);
    this.#skewMs = validateDurationOption(
      'refreshSkewMs',
      options.refreshSkewMs ?? DEFAULT_REFRESH_SKEW_MS,
    );
    this.#onStoreError = options.onStoreError ?? (() => {});
    this.#providerTimeoutMs = validateDurationOption(
      'providerTimeoutMs',
      options.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
    );
    this.#providerRetryMs = validateDurationOption(
      'providerRetryMs',
      options.providerRetryMs ?? DEFAULT_PROVIDER_RETRY_MS,
    );
  }

  get expiresAt(): number | undefined {
    return this.#current?.expiresAt;
  }

  async get(
    service: 'main' | 'standby',
    options: { signal?: AbortSignal; forceRefresh?: boolean } = {},
  ): Promise<IdTokenResult> {
    const { signal, forceRefresh = false } = options;
    signal?.throwIfAborted();
    await abortable(this.#ensureLoaded(), signal);

    const cached = this.#current;
    if (cached && !forceRefresh && this.#now() < cached.expiresAt - this.#skewMs) {
      return { token: cached.token, inGrace: false, expiresAt: cached.expiresAt };
    }

    const failure = this.#failure;
    if (failure && this.#now() - failure.at < this.#providerRetryMs) {
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
      `the ID-token provider returned a token that expired at ${new Date(fresh.expiresAt).toISOString()}`,
    );
    return this.#fallback(service, expired, false);
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
              `the ID-token provider did not answer within ${this.#providerTimeoutMs} ms`,
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
        const detail = cause instanceof Error ? `: ${cause.message}` : '';
        throw new LicensingError('UNAUTHORIZED', `the ID-token provider failed${detail}`, {
          cause,
        });
      }
      const parsed = readExpiry(raw);
      if (!parsed) {
        throw new LicensingError(
          'UNAUTHORIZED',
          'the ID-token provider returned something that is not a JWT with a numeric exp claim',
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

  #fallback(service: 'main' | 'standby', error: unknown, forceRefresh: boolean): IdTokenResult {
    const providerError = isLicensingError(error)
      ? error
      : new LicensingError('UNAUTHORIZED', 'the ID-token provider failed', { cause: error });
    const cached = this.#current;
    if (!cached) throw providerError;
    const now = this.#now();
    // Still unexpired (only inside the refresh skew): usable by either service, unless the
    // service just refused it (forceRefresh).
    if (!forceRefresh && now < cached.expiresAt) {
      return { token: cached.token, inGrace: false, expiresAt: cached.expiresAt };
    }
    if (service === 'main') throw providerError;
    if (now <= cached.expiresAt + this.#graceMs) {
      return { token: cached.token, inGrace: now >= cached.expiresAt, expiresAt: cached.expiresAt };
    }
    throw new LicensingError(
      'ID_TOKEN_EXPIRED',
      `the last ID token expired at ${new Date(cached.expiresAt).toISOString()}, more than ${this.#graceMs} ms ago, and no fresh one could be obtained`,
      { cause: providerError },
    );
  }
}

/**
 * Creates the {@link IdTokenSource} behind the `IdToken` scheme: it decodes `exp` (without
 * verifying: the licensing service is the relying party), asks `provider` again when the token
 * is expired (one shared in-flight call for concurrent callers), keeps the last good token in
 * `store` (loaded lazily on first use, so an app restarted mid-outage still has it), and lets the
 * standby use that token while `now <= exp + graceMs` when the provider cannot give a fresh one.
 *
 * @param options `provider` (required), `store` (default memory), `now` (default `Date.now`),
 *   `graceMs` (default 86 400 000), `refreshSkewMs` (default 30 000), `onStoreError`.
 * @throws TypeError when an option has the wrong type.
 * @example
 * const idTokens = createIdTokenSource({ provider: () => oidc.getIdToken() });
 * const { token, inGrace } = await idTokens.get('standby');
 */
export function createIdTokenSource(options: IdTokenSourceOptions): IdTokenSource {
  return new DefaultIdTokenSource(options);
}
