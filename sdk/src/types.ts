// Types shared across the SDK's areas (jose `types.d.ts`). Keeping them here, in a module that
// imports nothing, is what keeps the areas free of import cycles.

/** Which licensing service: the main service or the standby. */
export type LicensingService = 'main' | 'standby';

/** Which service answered: the main or the standby licensing service, or the event service. */
export type ServiceName = LicensingService | 'events';

/**
 * Why an HTTP attempt failed, as far as the SDK can tell. `proxy`: a proxy on the way was
 * unreachable, refused the request (407: it wants credentials; 403: it does not allow the
 * destination) or its setting is unusable. `tls`: the service's certificate is not trusted, has
 * expired or is for another host, or the TLS handshake failed. Both count as the service being
 * unreachable (failover applies). `setup`: the SDK could not make the request on this runtime as
 * the client is set up (its network module for proxies and `tls.ca` could not be loaded): no
 * outage, no failover.
 */
export type FailureReason =
  | 'setup'
  | 'proxy'
  | 'tls'
  | 'dns'
  | 'connection-refused'
  | 'connection-reset'
  | 'network'
  | 'timeout'
  | 'server-error'
  | 'request-timeout'
  | 'rate-limited'
  | 'malformed-body'
  | 'id-token-unavailable'
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'standby-dormant'
  | 'not-found'
  | 'client-error';

/** Options every async method accepts. */
export interface CallOptions {
  /** Aborts the call, including backoff waits and the in-flight attempt. */
  signal?: AbortSignal;
}

/** One item of a checkout, pinned to a license id (`ItemA=;licenseId=L1`). */
export interface CheckoutItem {
  item: string;
  licenseId?: string;
}

/** Claims of a verified lease token (the item claim, `lic`, `jti`, `iat`, `exp`, `rfr`, echoes). */
export type LeaseClaims = Record<string, unknown> & {
  iat: number;
  exp: number;
  jti?: string;
  lic?: string;
  rfr?: number;
  iss?: string;
  sub?: string;
};

/** A verified license lease for one item. */
export interface Lease {
  /** The licensed item this lease grants. */
  readonly item: string;
  /** The lease id (`jti`): what renewals and releases name. */
  readonly leaseId: string;
  /** The license id (`lic`). */
  readonly licenseId: string;
  /** The compact JWT as received; store it to re-verify later with `client.verify`. */
  readonly token: string;
  /** The verified claims. */
  readonly claims: LeaseClaims;
  /** End of the lease (`exp`), in ms since the epoch. */
  readonly expiresAt: number;
  /** When to renew (`rfr`, else 75 % of the lease), in ms since the epoch. */
  readonly refreshAt: number;
  /** Which service issued it. */
  readonly servedBy: LicensingService;
}

/** A requested item the main service refused in an otherwise good answer (`<item>_errorCode`). */
export interface DeniedItem {
  item: string;
  /** The service's code, e.g. `noLicenseFound`. */
  code: string;
  message?: string;
}

/** Result of `client.checkout`: granted leases and items the main service denied. */
export interface CheckoutResult {
  /** One verified lease per granted item, in request order. */
  leases: Lease[];
  /** Items refused in an otherwise good answer (e.g. `noLicenseFound`): not an outage. */
  denied: DeniedItem[];
}

/** A root certificate embedded in the app. */
export interface TrustedRoot {
  /** PEM text of the root certificate. */
  pem: string;
  /**
   * The standby signing key id this root belongs to; the SDK then sends it to the standby as
   * `Service-SigningKeyId`, so the standby signs with that key.
   */
  keyId?: string;
  /**
   * The service whose keys chain to this root (`embed-root` writes it). A root for `'main'` only
   * vouches for main's keys and its `keyId` is never sent; one for `'standby'` only for the
   * standby's. Default: either service.
   */
  service?: LicensingService;
}

/** A JWK set as the services publish it. */
export interface JwkSet {
  keys: Array<Record<string, unknown>>;
}

/**
 * Fetches a service's JWK set. Its failures are outages of that service: the verifier rethrows
 * them unchanged, never as `TOKEN_INVALID`.
 */
export type JwksLoader = (service: LicensingService, signal?: AbortSignal) => Promise<JwkSet>;

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

/** Receives what the SDK cannot report otherwise (a throwing listener, a failing store). */
export interface LicensingLogger {
  warn(message: string, detail?: unknown): void;
}

/** A lease as a lease store keeps it: the token is verified again whenever it is read back. */
export interface SavedLease {
  item: string;
  token: string;
  servedBy: LicensingService;
}

/**
 * What a lease store keeps (as JSON text): the app's leases, each service's trusted signing keys
 * (only JWKs whose chain verified, so `restore()` needs no network), the time mark (no trusted
 * time seen is later, in ms since the epoch: a clock reading earlier was set back) and the offset
 * of the services' clock to the local one learnt online, in ms.
 */
export interface SavedLicensingState {
  version: 2;
  leases: SavedLease[];
  keys: Record<LicensingService, Array<Record<string, unknown>>>;
  timeMark: number;
  offsetMs: number;
  /**
   * The lease time already charged to offline starts, in ms: each `restore()` that returns leases
   * counts as a minute of use, so restarts cannot run a lease for ever. Absent: `timeMark`.
   */
  usedUntil?: number;
}

/**
 * Where a licensing client keeps its state across restarts, as text. The client checks what
 * `load` returns (see `LEASE_STORE_INVALID`) and saves the whole state after each change.
 */
export interface LeaseStore {
  /**
   * The saved text, or undefined when nothing was saved. Rejects for an I/O error (the client
   * then never overwrites the store before it has read it), or with a `LeaseStoreInvalidError`
   * (`sealed`) when the text was not sealed by the store's `seal`.
   */
  load(): Promise<string | undefined>;
  /** Replaces the saved text. */
  save(text: string): Promise<void>;
  /** Forgets the saved state. */
  clear(): Promise<void>;
}

/**
 * Seals a persistent lease store's text, so any edit of it is detected
 * (`LEASE_STORE_INVALID`, reason `sealed`): e.g. Electron's `safeStorage`, or an HMAC whose key
 * lives in the OS keychain.
 */
export interface LeaseStoreSealing {
  /** Returns the text to store for `text`. */
  seal(text: string): string | Promise<string>;
  /** Returns the text `seal` was given; throws when `sealed` was not made by `seal`. */
  unseal(sealed: string): string | Promise<string>;
}
