import { describe, expect, it } from 'vitest';
import { hmacSealing } from '../../test/helpers/sealing.js';
import { createWebStorageLeaseStore, type WebStorageLike } from './web-storage-lease-store.js';

function fakeStorage(): WebStorageLike & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

const TEXT = '{"version":2,"leases":[],"keys":{"main":[],"standby":[]},"timeMark":5,"offsetMs":0}';

describe('createWebStorageLeaseStore', () => {
  it('keeps the text as one item under its key', async () => {
    const storage = fakeStorage();
    const store = createWebStorageLeaseStore(storage, 'app:licensing');
    expect(await store.load()).toBeUndefined();
    await store.save(TEXT);
    expect(storage.items.get('app:licensing')).toBe(TEXT);
    expect(await createWebStorageLeaseStore(storage, 'app:licensing').load()).toBe(TEXT);
    await store.clear();
    expect(storage.items.size).toBe(0);
  });

  it('seals what it saves and refuses an edited item with LEASE_STORE_INVALID sealed', async () => {
    const storage = fakeStorage();
    const store = createWebStorageLeaseStore({ storage, ...hmacSealing('k1') });
    await store.save(TEXT);
    const saved = storage.items.get('standby-licensing:state')!;
    expect(saved).not.toBe(TEXT);
    expect(await store.load()).toBe(TEXT);
    storage.items.set('standby-licensing:state', saved.replace('"timeMark":5', '"timeMark":0'));
    await expect(store.load()).rejects.toMatchObject({
      name: 'LeaseStoreInvalidError',
      code: 'LEASE_STORE_INVALID',
      reason: 'sealed',
    });
    // Sealed with another key: refused the same way.
    await createWebStorageLeaseStore({ storage, ...hmacSealing('k2') }).save(TEXT);
    await expect(store.load()).rejects.toMatchObject({ reason: 'sealed' });
  });

  it('takes seal and unseal both or neither', () => {
    const { seal } = hmacSealing('k');
    expect(() => createWebStorageLeaseStore({ storage: fakeStorage(), seal })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', option: 'sealing.unseal' }),
    );
  });

  it('defaults to globalThis.localStorage and refuses a runtime without one', () => {
    expect(() => createWebStorageLeaseStore()).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', option: 'storage' }),
    );
    const storage = fakeStorage();
    (globalThis as { localStorage?: WebStorageLike }).localStorage = storage;
    try {
      expect(() => createWebStorageLeaseStore()).not.toThrow();
    } finally {
      delete (globalThis as { localStorage?: WebStorageLike }).localStorage;
    }
  });
});
