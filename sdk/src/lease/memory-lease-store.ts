import type { LeaseStore, SavedLicensingState } from '../types.js';

/**
 * A {@link LeaseStore} in memory: the default. `restore()` then finds the leases of this process
 * only; use `createFileLeaseStore` (`@standby-licensing/sdk/node`) or `createWebStorageLeaseStore`
 * for an app that must keep its leases across a restart with no network.
 *
 * @example
 * const client = createLicensingClient({ ...options, leaseStore: createMemoryLeaseStore() });
 */
export function createMemoryLeaseStore(): LeaseStore {
  let saved: string | undefined;
  return {
    // Kept as JSON text so the client never shares objects with what it saved.
    async load() {
      return saved === undefined ? undefined : (JSON.parse(saved) as SavedLicensingState);
    },
    async save(state) {
      saved = JSON.stringify(state);
    },
    async clear() {
      saved = undefined;
    },
  };
}
