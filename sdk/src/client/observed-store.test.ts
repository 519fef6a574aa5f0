import { describe, expect, it } from 'vitest';
import { createMemoryLeaseStore } from '../lease/memory-lease-store.js';
import type { LeaseStore } from '../types.js';
import { observeStore } from './observed-store.js';

/** A memory store whose saves fail while `failing` is set. */
function flakyStore(): LeaseStore & { failing: boolean } {
  const inner = createMemoryLeaseStore();
  const store = {
    failing: false,
    load: () => inner.load(),
    clear: () => inner.clear(),
    async save(text: string) {
      if (store.failing) throw new Error('disk full');
      await inner.save(text);
    },
  };
  return store;
}

describe('observeStore', () => {
  it('counts the saves settled since a mark and passes them through', async () => {
    const inner = flakyStore();
    const store = observeStore(inner);
    await store.save('one');
    const mark = store.mark();
    expect(store.since(mark)).toEqual({ count: 0 });
    await store.save('two');
    await store.save('three');
    expect(store.since(mark)).toEqual({ count: 2 });
    expect(await inner.load()).toBe('three');
  });

  it('reports the error of the last save when it failed, and rethrows it', async () => {
    const inner = flakyStore();
    const store = observeStore(inner);
    const mark = store.mark();
    inner.failing = true;
    await expect(store.save('lost')).rejects.toThrow('disk full');
    expect(store.since(mark)).toMatchObject({ count: 1, error: { message: 'disk full' } });
    inner.failing = false;
    await store.save('kept');
    // A later success clears it: only the last save's failure is reported.
    expect(store.since(mark)).toEqual({ count: 2 });
  });

  it('reports no error from before the mark', async () => {
    const inner = flakyStore();
    const store = observeStore(inner);
    inner.failing = true;
    await store.save('lost').catch(() => undefined);
    expect(store.since(store.mark())).toEqual({ count: 0 });
  });
});
