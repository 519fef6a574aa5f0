import type { LeaseStore } from '../types.js';

/** The outcome of the saves made since a point (see {@link ObservedStore.since}). */
export interface SaveOutcome {
  /** Saves that settled since the mark. */
  count: number;
  /** The error of the last of them that failed, when the last one failed. */
  error?: unknown;
}

/** A lease store that remembers how its saves went (the lease state swallows save errors). */
export interface ObservedStore extends LeaseStore {
  /** A mark to pass to {@link ObservedStore.since}. */
  mark(): number;
  /** How the saves settled after `mark` went. */
  since(mark: number): SaveOutcome;
}

/**
 * Wraps the app's lease store so that `client.preflight()` can tell whether a write reached it:
 * the lease state logs a failed save and goes on (an online call never fails because the store
 * does), so the outcome is read here.
 *
 * @example
 * const store = observeStore(options.leaseStore ?? createMemoryLeaseStore());
 * const mark = store.mark();
 * await state.persist();
 * const { count, error } = store.since(mark);
 */
export function observeStore(store: LeaseStore): ObservedStore {
  let settled = 0;
  let last: { seq: number; error?: unknown } | undefined;
  return {
    load: () => store.load(),
    clear: () => store.clear(),
    async save(text) {
      try {
        await store.save(text);
        last = { seq: ++settled };
      } catch (error) {
        last = { seq: ++settled, error };
        throw error;
      }
    },
    mark: () => settled,
    since(mark) {
      const count = settled - mark;
      return count > 0 && last && 'error' in last ? { count, error: last.error } : { count };
    },
  };
}
