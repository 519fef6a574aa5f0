import { resolveSealing, sealText, unsealText } from '../internal/sealed-text.js';
import { option } from '../internal/validate-option.js';
import type { LeaseStore, LeaseStoreSealing } from '../types.js';

/** The part of the Web Storage API the store uses (`localStorage`, `sessionStorage`, a fake). */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Options of {@link createWebStorageLeaseStore} given as one object. */
export interface WebStorageLeaseStoreOptions extends Partial<LeaseStoreSealing> {
  /** Default `globalThis.localStorage`. */
  storage?: WebStorageLike;
  /** Default `'standby-licensing:state'`. */
  key?: string;
}

function isStorage(value: unknown): value is WebStorageLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as WebStorageLike).getItem === 'function' &&
    typeof (value as WebStorageLike).setItem === 'function'
  );
}

/**
 * A {@link LeaseStore} in Web Storage, for browsers and Electron renderers: the state is one item
 * under `key`. Leases and signing keys are not secrets (tokens are signed, not encrypted, and
 * every read verifies them again), but any script of the page's origin can read and edit them:
 * give `seal` and `unseal` (e.g. an HMAC with a non-extractable WebCrypto key kept in IndexedDB)
 * to make every edit detectable (`LEASE_STORE_INVALID`, reason `sealed`).
 *
 * @param storage Default `globalThis.localStorage`; or all options as one object.
 * @param key Default `'standby-licensing:state'`.
 * @param sealing `{ seal, unseal }`, both or neither. Default: none.
 * @throws InvalidOptionError when no storage is given and the runtime has no `localStorage`.
 * @example
 * const client = createLicensingClient({ ...options, leaseStore: createWebStorageLeaseStore() });
 * const sealed = createWebStorageLeaseStore({ seal: hmacSeal, unseal: hmacUnseal });
 */
export function createWebStorageLeaseStore(
  storage?: WebStorageLike | WebStorageLeaseStoreOptions,
  key?: string,
  sealing?: LeaseStoreSealing,
): LeaseStore {
  const given: WebStorageLeaseStoreOptions =
    storage === undefined || isStorage(storage)
      ? { ...(storage ? { storage } : {}), ...(key === undefined ? {} : { key }), ...sealing }
      : option.object('options', storage);
  option.knownKeys('options', given as Record<string, unknown>, [
    'storage',
    'key',
    'seal',
    'unseal',
  ]);
  const target =
    given.storage ?? (globalThis as { localStorage?: WebStorageLike }).localStorage ?? undefined;
  if (!isStorage(target)) {
    option.fail('storage', 'Expected `storage` (or globalThis.localStorage) to be a Web Storage');
  }
  const itemKey = option.string('key', given.key) ?? 'standby-licensing:state';
  const seal =
    given.seal === undefined && given.unseal === undefined
      ? undefined
      : resolveSealing('sealing', { seal: given.seal, unseal: given.unseal });
  return {
    async load() {
      const text = target.getItem(itemKey);
      return text === null ? undefined : unsealText(seal, text);
    },
    async save(text) {
      target.setItem(itemKey, await sealText(seal, text));
    },
    async clear() {
      target.removeItem(itemKey);
    },
  };
}
