import type { LicensingEventHub } from '../client-hooks.js';
import { DEFAULTS } from '../options/defaults.js';
import type { ResolvedAuth } from '../options/licensing-client.js';
import type { LicensingLogger, LicensingService } from '../types.js';
import { createResolvedIdTokenSource, type IdTokenSource } from './id-token-source.js';
import { computeServiceKeyHash } from './service-key-hash.js';

/** Options of a credentials request. */
export interface AuthorizationOptions {
  signal?: AbortSignal | undefined;
  /** Ask the ID-token provider even if the cached token is unexpired (after a 401). */
  forceRefresh?: boolean;
}

/** The `Authorization` header values of the licensing calls. */
export interface Credentials {
  /**
   * The `Authorization` value for a call to `service`. Rejects with the ID-token source's error
   * (a LicensingError) when no usable ID token can be had.
   */
  authorization(service: LicensingService, options?: AuthorizationOptions): Promise<string>;
  /** True when a main 401 is worth one forced refresh (ID-token auth). */
  readonly refreshable: boolean;
}

/** What {@link createCredentials} needs. */
export interface CredentialsDeps {
  auth: ResolvedAuth;
  names: { idTokenScheme: string; serviceKeyHashScheme: string };
  now: () => number;
  /** Receives `idTokenGrace`. */
  events: LicensingEventHub;
  /** Receives ID-token store failures. */
  logger: LicensingLogger | undefined;
  /** A ready ID-token source (tests); default: one built from `auth`. */
  idTokens?: IdTokenSource;
}

/**
 * Builds the client's credentials from the resolved `auth` option: an ID-token source (with the
 * standby's grace, `idTokenGrace` events and store errors sent to the logger) or a
 * ServiceKeyHash, given or computed once from the main deployment's public key.
 */
export function createCredentials(deps: CredentialsDeps): Credentials {
  const { auth, names, events } = deps;
  if (auth.kind === 'idToken') {
    const idTokens =
      deps.idTokens ??
      createResolvedIdTokenSource({
        provider: auth.provider,
        store: auth.store,
        now: deps.now,
        graceMs: auth.graceMs,
        refreshSkewMs: DEFAULTS.auth.refreshSkewMs,
        providerTimeoutMs: auth.providerTimeoutMs,
        providerRetryMs: auth.providerRetryMs,
        onStoreError: (error) => deps.logger?.warn('the ID-token store failed', error),
      });
    return {
      refreshable: true,
      async authorization(service, options = {}) {
        const result = await idTokens.get(service, {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.forceRefresh ? { forceRefresh: true } : {}),
        });
        if (result.inGrace) events.emit('idTokenGrace', { expiresAt: result.expiresAt });
        return `${names.idTokenScheme} ${result.token}`;
      },
    };
  }
  let hash: Promise<string> | undefined;
  const serviceKeyHash = (): Promise<string> => {
    hash ??=
      auth.kind === 'serviceKeyHash' ? Promise.resolve(auth.hash) : computeServiceKeyHash(auth.pem);
    return hash;
  };
  return {
    refreshable: false,
    async authorization() {
      return `${names.serviceKeyHashScheme} ${await serviceKeyHash()}`;
    },
  };
}
