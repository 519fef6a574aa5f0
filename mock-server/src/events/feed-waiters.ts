import type { StoredEvent } from '../store/event-index.js';

/** How a parked poll decides when to answer. */
export interface ParkOptions {
  /** Feed name the poll reads. */
  feed: string;
  /** Answer as soon as this many events are available. */
  maxEventCount: number;
  /** Once an event is available, answer no earlier than this many ms after the start. */
  minWaitMs: number;
  /** Answer at the latest this many ms after the start, events or not. */
  maxWaitMs: number;
}

/** Options of {@link FeedWaiters}: the two calls it makes about a parked poll. */
export interface FeedWaitersOptions<T> {
  /** Events now available to `poll` (called on parking and after each commit to its feed). */
  available(poll: T): number;
  /**
   * Answers `poll`: called exactly once per parked poll that is not cancelled, after it has left
   * the waiters (enough events, a deadline, or {@link FeedWaiters.releaseAll}).
   */
  answer(poll: T): void;
}

/**
 * A parked poll. One plain object per poll, with no closure, promise or AbortSignal of its own:
 * its timer calls one shared function with the waiter as argument (bench row 5 counts every
 * byte a parked poll keeps).
 */
export class Waiter<T> {
  /** The poll, handed back to `available` and `answer`. */
  readonly poll: T;
  readonly feed: string;
  readonly maxEventCount: number;
  readonly minWaitMs: number;
  /** `performance.now()` when parked. */
  readonly start: number;
  /** Set once the minWaitMs deadline replaced the maxWaitMs one (one timer per waiter). */
  armedForMin = false;
  timer: NodeJS.Timeout | undefined = undefined;
  owner: FeedWaiters<T> | undefined;

  constructor(owner: FeedWaiters<T>, poll: T, options: ParkOptions, minWaitMs: number) {
    this.owner = owner;
    this.poll = poll;
    this.feed = options.feed;
    this.maxEventCount = options.maxEventCount;
    this.minWaitMs = minWaitMs;
    this.start = performance.now();
  }
}

function onDeadline(waiter: Waiter<unknown>): void {
  waiter.owner?.settle(waiter);
}

function arm(waiter: Waiter<unknown>, atMs: number): void {
  clearTimeout(waiter.timer);
  const delay = Math.max(0, atMs - (performance.now() - waiter.start));
  waiter.timer = setTimeout(onDeadline, delay, waiter);
}

/**
 * Parked long polls, by feed. A waiter costs one {@link Waiter}, one set entry and one timer;
 * it is woken only by commits to its own feed, never by polling. Every parked poll ends on
 * enough events, its deadline, {@link FeedWaiters.releaseAll} (shutdown), all of which call
 * `answer` once, or {@link FeedWaiters.cancel} (the client went away), which does not.
 *
 * @example
 * const waiters = new FeedWaiters<Poll>({ available: (p) => count(p), answer: (p) => send(p) });
 * const waiter = waiters.park(poll, { feed: 'f', maxEventCount: 10, minWaitMs: 0, maxWaitMs: 30_000 });
 * if (!waiter) send(poll); // nothing to wait for
 */
export class FeedWaiters<T> {
  readonly #byFeed = new Map<string, Set<Waiter<T>>>();
  readonly #options: FeedWaitersOptions<T>;
  #count = 0;

  constructor(options: FeedWaitersOptions<T>) {
    this.#options = options;
  }

  /** Number of parked waiters (for tests and diagnostics). */
  get size(): number {
    return this.#count;
  }

  /**
   * Parks `poll` until `maxEventCount` events are available; or at least one is and `minWaitMs`
   * has passed; or `maxWaitMs` has passed; or {@link releaseAll}. Returns undefined, parking
   * nothing, when the poll should answer now (the caller answers it then).
   */
  park(poll: T, options: ParkOptions): Waiter<T> | undefined {
    const { maxEventCount, maxWaitMs } = options;
    const minWaitMs = Math.min(options.minWaitMs, maxWaitMs);
    const first = this.#options.available(poll);
    if (first >= maxEventCount || maxWaitMs <= 0 || (first > 0 && minWaitMs <= 0)) {
      return undefined;
    }
    const waiter = new Waiter(this, poll, options, minWaitMs);
    let set = this.#byFeed.get(options.feed);
    if (!set) {
      set = new Set();
      this.#byFeed.set(options.feed, set);
    }
    set.add(waiter);
    this.#count++;
    if (first > 0) {
      waiter.armedForMin = true;
      arm(waiter, minWaitMs);
    } else {
      arm(waiter, maxWaitMs);
    }
    return waiter;
  }

  /** Drops a parked waiter without answering (the client went away); false if it was not parked. */
  cancel(waiter: Waiter<T>): boolean {
    return this.#remove(waiter);
  }

  /** Wakes the waiters of every feed the committed events belong to. */
  notify(events: readonly StoredEvent[]): void {
    const woken = new Set<Waiter<T>>();
    for (const event of events) {
      for (const name of [event.source, event.object]) {
        if (name === undefined) continue;
        const set = this.#byFeed.get(name);
        if (set) for (const waiter of set) woken.add(waiter);
      }
    }
    for (const waiter of woken) this.#wake(waiter);
  }

  /** Ends every parked wait now (server shutdown); each poll then answers with what it has. */
  releaseAll(): void {
    for (const set of [...this.#byFeed.values()])
      for (const waiter of [...set]) this.settle(waiter);
  }

  /** Ends `waiter` and answers its poll, unless it already ended (its deadline calls this). */
  settle(waiter: Waiter<T>): void {
    if (this.#remove(waiter)) this.#options.answer(waiter.poll);
  }

  #wake(waiter: Waiter<T>): void {
    const n = this.#options.available(waiter.poll);
    if (n <= 0 || (n < waiter.maxEventCount && waiter.armedForMin)) return;
    if (n >= waiter.maxEventCount || performance.now() - waiter.start >= waiter.minWaitMs) {
      this.settle(waiter);
    } else {
      // One timer per waiter: the minWaitMs deadline replaces the maxWaitMs one.
      waiter.armedForMin = true;
      arm(waiter, waiter.minWaitMs);
    }
  }

  #remove(waiter: Waiter<T>): boolean {
    if (waiter.owner !== this) return false;
    waiter.owner = undefined;
    clearTimeout(waiter.timer);
    waiter.timer = undefined;
    const set = this.#byFeed.get(waiter.feed);
    if (set?.delete(waiter)) {
      this.#count--;
      if (set.size === 0) this.#byFeed.delete(waiter.feed);
    }
    return true;
  }
}
