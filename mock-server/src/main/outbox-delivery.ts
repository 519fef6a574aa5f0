import type { EventStore } from '../store/event-store.js';
import type { LicenseBook } from './license-book.js';
import type { MainEvent } from './main-events.js';

/** Options of {@link createOutboxDelivery}. */
export interface OutboxDeliveryOptions {
  book: LicenseBook;
  events: EventStore;
  /** Told when a delivery fails (it is retried after `retryDelayMs`). */
  onError?: (error: unknown) => void;
  /** Wait before retrying a failed delivery, in ms. Default 1000. */
  retryDelayMs?: number;
}

/** Moves the main service's outbox into the event store, in order, exactly once. */
export interface OutboxDelivery {
  /** Starts delivering what the outbox holds, unless paused or already at it. */
  kick(): void;
  /** Holds deliveries (an event-service outage for main's events) or lets them go again. */
  setPaused(paused: boolean): void;
  readonly paused: boolean;
  /** Resolves once nothing is being delivered (the outbox may still hold entries). */
  idle(): Promise<void>;
  /** Stops: no new delivery starts; waits for the one in progress. */
  close(): Promise<void>;
}

/** Whether the event store already holds `event` (same `eventId` in its object's feed). */
function isStored(events: EventStore, event: MainEvent): boolean {
  const feed = events.feed(`${event.eventObjectType}/${event.eventObjectId}`);
  if (!feed) return false;
  for (let i = feed.size - 1; i >= 0; i--) {
    const stored = JSON.parse(feed.at(i).text) as { eventId?: unknown };
    if (stored.eventId === event.eventId) return true;
  }
  return false;
}

/**
 * Delivers the outbox of `book` to `events`: takes every waiting entry, appends the events the
 * store does not hold yet as one all-or-nothing batch, then removes the entries from the outbox
 * (one stored write). A crash between the two steps leaves the entries in the outbox with their
 * events already stored: the first delivery after the start (or after a failed one) looks each
 * event up by its `eventId` in its object's feed and appends only those it does not find, so
 * each event is written exactly once (docs/decisions/0021-main-event-outbox.md). Deliveries run
 * one at a time, in change order.
 *
 * @example
 * const delivery = createOutboxDelivery({ book, events: app.eventStore });
 * book.onChange(() => delivery.kick());
 * delivery.kick(); // what a crash left behind
 */
export function createOutboxDelivery(options: OutboxDeliveryOptions): OutboxDelivery {
  const { book, events } = options;
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
      const waiting = entries.flatMap((entry) => entry.events);
      const missing = uncertain ? waiting.filter((event) => !isStored(events, event)) : waiting;
      if (missing.length > 0) await events.append(missing);
      await book.acknowledge(entries.at(-1)!.change);
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
