import { option } from '../internal/validate-option.js';
import type { LeaseStore, SavedLicensingState } from '../types.js';

/** The part of the Web Storage API the store uses (`localStorage`, `sessionStorage`, a fake). */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * A {@link LeaseStore} in Web Storage, for browsers and Electron renderers: the state is one JSON
 * item under `key`. Leases and JWK sets are not secrets (the tokens are signed, not encrypted, and
 * every read verifies them again), but any script of the page's origin can read them.
 *
 * @param storage Default `globalThis.localStorage`.
 * @param key Default `'standby-licensing:state'`.
 * @throws InvalidOptionError when no storage is given and the runtime has no `localStorage`.
 * @example
 * const client = createLicensingClient({ ...options, leaseStore: createWebStorageLeaseStore() });
 */
export function createWebStorageLeaseStore(
  storage?: WebStorageLike,
  key = 'standby-licensing:state',
): LeaseStore {
  const target =
    storage ?? (globalThis as { localStorage?: WebStorageLike }).localStorage ?? undefined;
  if (!target || typeof target.getItem !== 'function' || typeof target.setItem !== 'function') {
    option.fail('storage', 'Expected `storage` (or globalThis.localStorage) to be a Web Storage');
  }
  option.string('key', key);
  return {
    async load() {
      const text = target.getItem(key);
      return text === null ? undefined : (JSON.parse(text) as SavedLicensingState);
    },
    async save(state) {
      target.setItem(key, JSON.stringify(state));
    },
    async clear() {
      target.removeItem(key);
    },
  };
}
