/** One stored event: its timestamp and its JSON text with `eventReceived` fields included. */
export interface StoredEvent {
  /** `eventReceived`, nanoseconds since the epoch. */
  readonly ts: bigint;
  /** The event as JSON text, `eventReceived` written as exact digits. */
  readonly text: string;
  /** Key of the source feed (`eventSourceId`). */
  readonly source: string;
  /** Key of the object feed (`<eventObjectType>/<eventObjectId>`), if the event names one. */
  readonly object: string | undefined;
}

/**
 * The events of one feed in ascending timestamp order. Appends always carry larger timestamps
 * than any stored one (the store hands them out in order), so a push keeps the order and ranges
 * are found by binary search.
 */
export class EventIndex {
  readonly #ts: bigint[] = [];
  readonly #events: StoredEvent[] = [];

  /** Number of events in the feed. */
  get size(): number {
    return this.#events.length;
  }

  /** Appends an event whose timestamp is larger than every stored one. */
  push(event: StoredEvent): void {
    this.#ts.push(event.ts);
    this.#events.push(event);
  }

  /** Index of the first event with a timestamp strictly greater than `ts`. */
  firstAfter(ts: bigint): number {
    let lo = 0;
    let hi = this.#ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ts[mid]! <= ts) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first event with a timestamp greater than or equal to `ts`. */
  firstAtOrAfter(ts: bigint): number {
    let lo = 0;
    let hi = this.#ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ts[mid]! < ts) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The event at position `i`. */
  at(i: number): StoredEvent {
    return this.#events[i]!;
  }

  /** Events from position `start` (inclusive) to `end` (exclusive). */
  slice(start: number, end: number): StoredEvent[] {
    return this.#events.slice(start, end);
  }
}
