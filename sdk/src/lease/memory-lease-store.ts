import type { LeaseStore } from '../types.js';

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
    async load() {
      return saved;
    },
    async save(text) {
      saved = text;
    },
    async clear() {
      saved = undefined;
    },
  };
}
