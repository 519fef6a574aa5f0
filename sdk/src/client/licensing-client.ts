import type { LicensingEvents } from '../client-hooks.js';
import type { LicensingError } from '../errors.js';
import type { CloseOptions } from '../options/app-integration.js';
import type {
  CallOptions,
  CheckoutItem,
  CheckoutResult,
  Lease,
  LicensingService,
} from '../types.js';
import type { LicensingStatus } from './client-status.js';
import type { LeaseKeeper, LeaseKeeperOptions } from './lease-keeper.js';

export type { LicensingStatus } from './client-status.js';

/** Options of `client.verify`. */
export interface VerifyOptions extends CallOptions {
  /** The item the lease must grant. Default: the token's only `<item>: true` claim. */
  item?: string;
  /** Whose keys to verify with. Default: `'standby'` when `iss` is the standby's URL, else `'main'`. */
  service?: LicensingService;
}

/** One product of the main service's checkout action. */
export interface ProductCheckout {
  productName: string;
  /** Integer >= 1. */
  qty: number;
  qtyDimension: 'SEATS' | 'USE_COUNT' | 'USE_TIME';
}

/** Per-product answer of the main service's checkout action. */
export interface ProductCheckoutResult {
  /** The requested product (answers are matched to requests by position). */
  productName: string;
  /** True only with a token that verified as a lease for this product. */
  granted: boolean;
  /** The lease token of a granted product, verified. */
  jwt?: string;
  /** Verified claims of `jwt`. */
  claims?: Record<string, unknown>;
  /** The granted product's lease (saved in the lease store like a checkout's). */
  lease?: Lease;
  errorCode?: string;
  errorDescription?: string;
}

/** Result of `client.restore`. */
export interface RestoreResult {
  /** The saved leases that are still valid, each verified again. */
  leases: Lease[];
}

/** Which part of the setup a preflight check looks at. */
export type PreflightCheckId = 'main' | 'standby' | 'id-token' | 'lease-store';

/** One check of `client.preflight()`. */
export interface PreflightCheck {
  id: PreflightCheckId;
  /** False only when the check failed (`status: 'failed'`). */
  ok: boolean;
  /** `skipped`: the check could not apply (a dormant standby, no ID token in use). */
  status: 'passed' | 'failed' | 'skipped';
  /** What was found and, for a failure, what to do. */
  message: string;
  /** The error behind a failed check, with its `code` (and `reason`). */
  error?: LicensingError;
}

/** Result of `client.preflight()`. */
export interface PreflightResult {
  /** True when every check passed or could not apply. */
  ok: boolean;
  /** `id-token`, `main`, `standby`, `lease-store`, in that order. */
  checks: PreflightCheck[];
}

/** A licensing client (see `createLicensingClient`). */
export interface LicensingClient extends LicensingEvents {
  /**
   * Checks out a lease per item (main first; failover per the strategy). Denied items are
   * returned in `denied`, never thrown.
   */
  checkout(
    items: readonly (string | CheckoutItem)[],
    options?: CallOptions,
  ): Promise<CheckoutResult>;
  /** Renews a lease (same `leaseId`); a standby lease is checked out anew when main serves. */
  renew(lease: Lease, options?: CallOptions): Promise<Lease>;
  /** Releases leases (best effort: the standby keeps no seats; one request for all of them). */
  release(leases: Lease | readonly Lease[], options?: CallOptions): Promise<void>;
  /**
   * Re-verifies a token the app kept (e.g. read from disk) and returns it as a lease: a lease
   * for `options.item` (default: the one item it grants) from the service that signed it, bound
   * to this device when the client has a `hardwareId`. Rejects with `TOKEN_INVALID` for anything
   * else (a release answer above all) and `CLOCK_ROLLBACK` when the clock was set back.
   */
  verify(token: string, options?: VerifyOptions): Promise<Lease>;
  /**
   * The leases kept in the `leaseStore` that are still valid, verified again against the saved
   * signing keys and the embedded roots, with no network call: what an app restarted during an
   * outage uses until it can renew. Rejects with `LEASE_STORE_INVALID` (`reason`: `unreadable`,
   * `malformed`, `edited`, `sealed`) for a store that exists but cannot be trusted, and with
   * `CLOCK_ROLLBACK` when the clock was set back.
   */
  restore(options?: CallOptions): Promise<RestoreResult>;
  /**
   * The main service's product checkout (`POST /licensing/actions/checkout`). Main only: the
   * standby has no such action and counts no seats, so there is nothing to fail over to.
   */
  checkoutProducts(
    products: readonly ProductCheckout[],
    options?: CallOptions,
  ): Promise<ProductCheckoutResult[]>;
  /** Keeps leases alive until `close()`; see {@link LeaseKeeper}. */
  keepAlive(leases: readonly Lease[], options?: LeaseKeeperOptions): LeaseKeeper;
  /** The service the next call goes to first (`'main'` or `'standby'`). */
  readonly activeService: LicensingService;
  /**
   * True while the client holds a lease for `item` that has not expired on its clock (the local
   * clock corrected by the services' offset). No network call: gate a feature on it.
   *
   * @throws LicensingError `INVALID_ARGUMENT` when `item` is not a non-empty string.
   */
  has(item: string): boolean;
  /**
   * A snapshot of what the client holds ({@link LicensingStatus}); the same object until
   * something changes, so it fits React's `useSyncExternalStore(client.subscribe, client.status)`.
   */
  status(): LicensingStatus;
  /**
   * Calls `listener()` after every change of {@link LicensingClient.status}'s snapshot. Returns a
   * function that removes it. A listener that throws is reported to `logger.warn`.
   */
  subscribe(listener: () => void): () => void;
  /**
   * Checks the setup against the services without taking a seat: the ID-token provider gives a
   * token (`id-token`), main answers and its signing key chains to an embedded root (`main`),
   * the standby answers `/enabled` as a standby does and, when enabled, its signing key chains to
   * an embedded root (`standby`), and the lease store can be read and written (`lease-store`,
   * written with what it holds). Resolves even when checks fail; run it in the app's CI and at
   * start.
   */
  preflight(options?: CallOptions): Promise<PreflightResult>;
  /**
   * Stops probes, closes keepers (releasing their leases unless a keeper's `releaseOnClose` is
   * false) and refuses further calls. With `{ release: true }` it first releases every lease the
   * client holds, best effort, in at most `timeoutMs` (default 2 000). Never rejects but for a bad
   * option.
   */
  close(options?: CloseOptions): Promise<void>;
}
