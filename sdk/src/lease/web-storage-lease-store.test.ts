import { describe, expect, it } from 'vitest';
import type { SavedLicensingState } from '../types.js';
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

const state: SavedLicensingState = { version: 1, leases: [], jwks: {}, trustedTime: 5 };

describe('createWebStorageLeaseStore', () => {
  it('keeps the state as one JSON item under its key', async () => {
    const storage = fakeStorage();
    const store = createWebStorageLeaseStore(storage, 'app:licensing');
    expect(await store.load()).toBeUndefined();
    await store.save(state);
    expect(JSON.parse(storage.items.get('app:licensing')!)).toEqual(state);
    expect(await createWebStorageLeaseStore(storage, 'app:licensing').load()).toEqual(state);
    await store.clear();
    expect(storage.items.size).toBe(0);
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
