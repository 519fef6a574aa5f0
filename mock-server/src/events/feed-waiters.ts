import type { StoredEvent } from '../store/event-index.js';

/** What a long poll needs to decide whether to answer. */
export interface WaitOptions {
  /** Feed name the poll reads. */
  feed: string;
  /** Events now available to the poll (called after each matching commit). */
  available: () => number;
  /** Answer as soon as this many events are available. */
  maxEventCount: number;
  /** Once an event is available, answer no earlier than this many ms after the start. */
  minWaitMs: number;
  /** Answer at the latest this many ms after the start, events or not. */
  maxWaitMs: number;
  /** Aborts the wait (client disconnect). */
  signal?: AbortSignal;
}

interface Waiter {
  wake(): void;
  finish(): void;
}

/**
 * Parked long polls, by feed. A waiter costs one closure, one set entry and at most one timer;
 * it is woken only by commits to its own feed, never by polling. Every waiter ends on enough
 * events, its timeout, an abort signal, or {@link FeedWaiters.releaseAll} (shutdown).
 */
export class FeedWaiters {
  readonly #byFeed = new Map<string, Set<Waiter>>();
  #count = 0;

  /** Number of parked waiters (for tests and diagnostics). */
  get size(): number {
    return this.#count;
  }

  /** Wakes the waiters of every feed the committed events belong to. */
  notify(events: readonly StoredEvent[]): void {
    const woken = new Set<Waiter>();
    for (const event of events) {
      for (const name of [event.source, event.object]) {
        if (name === undefined) continue;
        const set = this.#byFeed.get(name);
        if (set) for (const waiter of set) woken.add(waiter);
      }
    }
    for (const waiter of woken) waiter.wake();
  }

  /** Ends every parked wait now (server shutdown); each poll then answers with what it has. */
  releaseAll(): void {
    for (const set of [...this.#byFeed.values()]) for (const waiter of [...set]) waiter.finish();
  }

  /**
   * Resolves when the poll should answer: `maxEventCount` events are available; or at least one
   * is and `minWaitMs` has passed; or `maxWaitMs` has passed; or the signal aborts; or
   * {@link releaseAll}. Resolves at once when no wait is needed.
   */
  wait(options: WaitOptions): Promise<void> {
    const { feed, available, maxEventCount, signal } = options;
    const maxWaitMs = options.maxWaitMs;
    const minWaitMs = Math.min(options.minWaitMs, maxWaitMs);
    const first = available();
    if (
      first >= maxEventCount ||
      maxWaitMs <= 0 ||
      (first > 0 && minWaitMs <= 0) ||
      signal?.aborted
    ) {
      return Promise.resolve();
    }
    const start = performance.now();
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let armedForMin = false;
      const arm = (atMs: number) => {
        clearTimeout(timer);
        timer = setTimeout(waiter.finish, Math.max(0, atMs - (performance.now() - start)));
      };
      const waiter: Waiter = {
        wake: () => {
          const n = available();
          if (n >= maxEventCount) return waiter.finish();
          if (n > 0 && !armedForMin) {
            if (performance.now() - start >= minWaitMs) return waiter.finish();
            // One timer per waiter: the minWaitMs deadline replaces the maxWaitMs one.
            armedForMin = true;
            arm(minWaitMs);
          }
        },
        finish: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', waiter.finish);
          const set = this.#byFeed.get(feed);
          if (set?.delete(waiter)) {
            this.#count--;
            if (set.size === 0) this.#byFeed.delete(feed);
          }
          resolve();
        },
      };
      let set = this.#byFeed.get(feed);
      if (!set) {
        set = new Set();
        this.#byFeed.set(feed, set);
      }
      set.add(waiter);
      this.#count++;
      signal?.addEventListener('abort', waiter.finish, { once: true });
      if (first > 0) {
        armedForMin = true;
        arm(minWaitMs);
      } else {
        arm(maxWaitMs);
      }
    });
  }
}
