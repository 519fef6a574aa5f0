// CONTRACT between the SDK helpers: the types below are fixed; the implementation
// (createIdTokenSource) is built by the auth/verify helper in this file.

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
