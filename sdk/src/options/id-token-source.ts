import { option } from '../internal/validate-option.js';
import type { IdTokenStore } from '../types.js';
import { DEFAULTS, MAX_GRACE_MS } from './defaults.js';

/** Options of {@link createIdTokenSource}. */
export interface IdTokenSourceOptions {
  /** The app's ID-token provider (e.g. its OIDC client's silent refresh). Called only when needed. */
  provider: () => string | Promise<string>;
  /** Where the last good token is kept. Default: memory only ({@link createMemoryIdTokenStore}). */
  store?: IdTokenStore;
  /** Clock in ms since the epoch. Default: `Date.now`. */
  now?: () => number;
  /**
   * How long after `exp` the standby still accepts a token, in ms, at most its 24 h grace.
   * Default: 86 400 000 (24 h). See
   * https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#authentication
   */
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

/** ID-token source options after defaults and validation. */
export interface ResolvedIdTokenSourceOptions {
  provider: () => string | Promise<string>;
  store: IdTokenStore | undefined;
  now: () => number;
  graceMs: number;
  refreshSkewMs: number;
  onStoreError: (error: unknown) => void;
  providerTimeoutMs: number;
  providerRetryMs: number;
}

/**
 * Applies `DEFAULTS.auth` and validates `createIdTokenSource`'s options once. Throws an
 * `InvalidOptionError` naming the option.
 */
export function resolveIdTokenSourceOptions(
  options: IdTokenSourceOptions,
): ResolvedIdTokenSourceOptions {
  const o = option.object('options', options);
  option.knownKeys('', o, [
    'provider',
    'store',
    'now',
    'graceMs',
    'refreshSkewMs',
    'onStoreError',
    'providerTimeoutMs',
    'providerRetryMs',
  ]);
  option.requireFn('provider', o.provider);
  const d = DEFAULTS.auth;
  return {
    provider: o.provider as () => string | Promise<string>,
    store: o.store === undefined ? undefined : resolveIdTokenStore('store', o.store),
    now: option.fn('now', o.now, Date.now),
    graceMs: option.number('graceMs', o.graceMs, d.graceMs, { max: MAX_GRACE_MS }),
    refreshSkewMs: option.number('refreshSkewMs', o.refreshSkewMs, d.refreshSkewMs),
    onStoreError: option.fn('onStoreError', o.onStoreError, () => {}),
    providerTimeoutMs: option.number('providerTimeoutMs', o.providerTimeoutMs, d.providerTimeoutMs),
    providerRetryMs: option.number('providerRetryMs', o.providerRetryMs, d.providerRetryMs),
  };
}

/** An ID-token store option: an object with `load`, `save` and `clear`. */
export function resolveIdTokenStore(name: string, value: unknown): IdTokenStore {
  const store = option.object(name, value);
  for (const method of ['load', 'save', 'clear'])
    option.requireFn(`${name}.${method}`, store[method]);
  return store as unknown as IdTokenStore;
}
