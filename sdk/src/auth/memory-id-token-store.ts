import type { IdTokenStore } from '../types.js';

/**
 * An {@link IdTokenStore} that keeps the token in memory only: the default. It does not survive
 * a restart; use `createFileIdTokenStore` from `@standby-licensing/sdk/node` (or your own store,
 * e.g. the OS keychain) when the app must keep working after a restart mid-outage.
 *
 * @example
 * const source = createIdTokenSource({ provider: getIdToken, store: createMemoryIdTokenStore() });
 */
export function createMemoryIdTokenStore(): IdTokenStore {
  let token: string | undefined;
  return {
    async load() {
      return token;
    },
    async save(next) {
      token = next;
    },
    async clear() {
      token = undefined;
    },
  };
}
