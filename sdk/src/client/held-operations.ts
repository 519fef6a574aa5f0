// The client's operations on the leases it holds, each recorded in the client's status: what the
// app's calls and the lease keepers both run, so a keeper's renewal shows in `status()` exactly
// as the app's own does.
import type { LicensingTelemetry } from '../telemetry/licensing-telemetry.js';
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

/** The item names of a checkout's arguments (the call itself checks them). */
function itemNames(items: unknown): unknown[] {
  return Array.isArray(items)
    ? items.map((item) => (typeof item === 'object' && item !== null ? item.item : item))
    : [];
}

/**
 * `held` run through `telemetry` (traced and published, docs/observability.md): what the app's
 * calls and the lease keepers run. A keeper's re-issue is a checkout of the lease's item,
 * `reissue: true`.
 *
 * @example
 * const operations = traceHeldOperations(createHeldOperations(context, status), telemetry);
 */
export function traceHeldOperations(
  held: HeldOperations,
  telemetry: LicensingTelemetry,
): HeldOperations {
  return {
    checkout: (items, o) =>
      telemetry.run('checkout', { items: itemNames(items) }, () => held.checkout(items, o)),
    renew: (lease, o) => telemetry.run('renew', { lease }, () => held.renew(lease, o)),
    reissue: (lease, o) =>
      telemetry.run('checkout', { items: [lease.item], reissue: true }, () =>
        held.reissue(lease, o),
      ),
    release: (leases, o) =>
      telemetry.run('release', { leases: [leases].flat() }, () => held.release(leases, o)),
  };
}
