import type { EventStore } from './event-store.js';
import type { Outbox, OutboxEntry, OutboxEvent } from './outbox.js';

/** Options of {@link createOutboxDelivery}. */
export interface OutboxDeliveryOptions {
  /** Where the events wait: the main's license book, the standby's outbox journal. */
  outbox: Outbox;
  events: EventStore;
  /** Told when a delivery fails (it is retried after `retryDelayMs`). */
  onError?: (error: unknown) => void;
  /** Wait before retrying a failed delivery, in ms. Default 1000. */
  retryDelayMs?: number;
}

/** Moves a service's outbox into the event store, in order, exactly once. */
export interface OutboxDelivery {
  /** Starts delivering what the outbox holds, unless paused or already at it. */
  kick(): void;
  /** Holds deliveries (an event-service outage for this outbox's events) or lets them go again. */
  setPaused(paused: boolean): void;
  readonly paused: boolean;
  /** Resolves once nothing is being delivered (the outbox may still hold entries). */
  idle(): Promise<void>;
  /** Stops: no new delivery starts; waits for the one in progress. */
  close(): Promise<void>;
}

/**
 * The events of `entries` the event store does not hold yet (the same `eventId` in its object's
 * feed). Each feed is read once, from its newest event back to the oldest one that can be one of
 * them: stored after the entry's `storedAfter` when every entry knows it, else the whole feed.
 */
function notStored(events: EventStore, entries: readonly OutboxEntry[]): OutboxEvent[] {
  const waiting = entries.flatMap((entry) => entry.events);
  let floor: bigint | undefined;
  for (const entry of entries) {
    if (entry.storedAfter === undefined) {
      floor = undefined;
      break;
    }
    const after = BigInt(entry.storedAfter);
    if (floor === undefined || after < floor) floor = after;
  }
  const ids = new Set(waiting.map((event) => event.eventId));
  const found = new Set<string>();
  const feeds = new Set(waiting.map((event) => `${event.eventObjectType}/${event.eventObjectId}`));
  for (const name of feeds) {
    const feed = events.feed(name);
    if (!feed) continue;
    const oldest = floor === undefined ? 0 : feed.firstAfter(floor);
    for (let i = feed.size - 1; i >= oldest; i--) {
      const stored = JSON.parse(feed.at(i).text) as { eventId?: unknown };
      if (typeof stored.eventId === 'string' && ids.has(stored.eventId)) found.add(stored.eventId);
    }
  }
  return found.size === 0 ? waiting : waiting.filter((event) => !found.has(event.eventId));
}

/**
 * Delivers `outbox` to `events`: takes every waiting entry, appends the events the store does
 * not hold yet as one all-or-nothing batch, then removes the entries from the outbox (one stored
 * write). A crash between the two steps leaves the entries in the outbox with their events
 * already stored: the first delivery after the start (or after a failed one) looks each event up
 * by its `eventId` in its object's feed and appends only those it does not find, so each event
 * is written exactly once (docs/decisions/0021-main-event-outbox.md). Deliveries run one at a
 * time, in change order. The main service's license book and the standby's outbox journal are
 * both delivered by it (docs/decisions/0036-standby-usage-events.md).
 *
 * @example
 * const delivery = createOutboxDelivery({ outbox: book, events: app.eventStore });
 * book.onChange(() => delivery.kick());
 * delivery.kick(); // what a crash left behind
 */
export function createOutboxDelivery(options: OutboxDeliveryOptions): OutboxDelivery {
  const { outbox: book, events } = options;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  let paused = false;
  let closed = false;
  // Whether waiting events may be in the store already: at start (a crash may have come between
  // the two steps) and after a failed delivery (the append may have worked, the outbox update
  // not). After a delivery that completed, the outbox holds only events never appended.
  let uncertain = true;
  let running: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;

  const deliverAll = async (): Promise<void> => {
    while (!paused && !closed) {
      const entries = book.outbox();
      if (entries.length === 0) return;
      // Taken before the append: entries recorded while it runs are the next round's.
      const upTo = entries.at(-1)!.change;
      const missing = uncertain
        ? notStored(events, entries)
        : entries.flatMap((entry) => entry.events);
      if (missing.length > 0) await events.append(missing);
      await book.acknowledge(upTo);
      uncertain = false;
    }
  };

  const kick = () => {
    if (running || paused || closed) return;
    clearTimeout(retry);
    retry = undefined;
    running = deliverAll()
      .catch((error: unknown) => {
        uncertain = true;
        if (closed) return;
        options.onError?.(error);
        retry = setTimeout(kick, retryDelayMs);
        retry.unref();
      })
      .finally(() => {
        running = undefined;
        // A change stored after the last look at the outbox found `running` still set.
        if (retry === undefined && book.outbox().length > 0) kick();
      });
  };

  return {
    kick,
    setPaused(next) {
      paused = next;
      if (!paused) kick();
    },
    get paused() {
      return paused;
    },
    idle: async () => {
      while (running) await running;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      while (running) await running;
    },
  };
}
