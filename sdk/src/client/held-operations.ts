// The client's operations on the leases it holds, each recorded in the client's status: what the
// app's calls and the lease keepers both run, so a keeper's renewal shows in `status()` exactly
// as the app's own does.
import type { CallOptions, CheckoutItem, CheckoutResult, Lease } from '../types.js';
import { checkout, reissue } from './checkout.js';
import type { ClientContext } from './client-context.js';
import type { ClientStatus } from './client-status.js';
import { type ReleaseOptions, release } from './release.js';
import { renew } from './renew.js';

/** Checkout, renew, re-issue and release, with their outcome recorded in the client's status. */
export interface HeldOperations {
  checkout(
    items: readonly (string | CheckoutItem)[],
    options?: CallOptions,
  ): Promise<CheckoutResult>;
  renew(lease: Lease, options?: CallOptions): Promise<Lease>;
  /** Checks `lease`'s item out anew, the granted lease taking `lease`'s place where it is saved. */
  reissue(lease: Lease, options?: CallOptions): Promise<CheckoutResult>;
  /** Releases leases; the client stops holding them whatever the services answer. */
  release(leases: Lease | readonly Lease[], options?: ReleaseOptions): Promise<void>;
}

const held = { held: (result: CheckoutResult) => result.leases };

/**
 * The held operations of a client on its context and status.
 *
 * @example
 * const operations = createHeldOperations(context, status);
 * const renewed = await operations.renew(lease); // status() now lists `renewed`
 */
export function createHeldOperations(context: ClientContext, status: ClientStatus): HeldOperations {
  return {
    checkout: (items, options) => status.track(checkout(context, items, options), held),
    renew: (lease, options) => status.track(renew(context, lease, options)),
    reissue: (lease, options) => status.track(reissue(context, lease, options), held),
    release(leases, options) {
      const list = (Array.isArray(leases) ? leases : [leases]) as readonly Lease[];
      // The app is done with them whatever the services answer.
      status.drop(list.map((lease) => lease?.leaseId));
      return status.track(release(context, list, options));
    },
  };
}
