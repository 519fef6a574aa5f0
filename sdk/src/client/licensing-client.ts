import type { LicensingEvents } from '../client-hooks.js';
import type { LeaseKeeper, LeaseKeeperOptions } from '../lease/lease-keeper.js';
import type {
  CallOptions,
  CheckoutItem,
  CheckoutResult,
  Lease,
  LicensingService,
} from '../types.js';

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
  /** Releases leases (best effort by spec; one request for all of them). */
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
  /** Stops probes, closes keepers (releasing their leases) and refuses further calls. */
  close(options?: CallOptions): Promise<void>;
}
