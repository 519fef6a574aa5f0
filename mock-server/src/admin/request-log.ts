import type { LicensingKind } from '../licensing/licensing-summary.js';
import type { UnansweredOutcome } from './fault-registry.js';

/**
 * What happened to a request that got no whole HTTP answer: none at all (an injected fault, a
 * client that left), or one cut off by a `truncate` fault.
 */
export type RequestOutcome = UnansweredOutcome | 'truncated';

/** One request the server handled, as the QA console's live log shows it. */
export interface RequestLogEntry {
  /** Position in the log, from 1; the SSE event id. */
  seq: number;
  /** When the answer went out (or the request ended), ms since the epoch, real time. */
  at: number;
  /** `main`, `standby`, `events`, `idp`, `admin`, or `other` for paths outside them. */
  service: string;
  method: string;
  /** The route under the service, e.g. `/authz/.jwt`; the raw path (cut) when no route matched. */
  route: string;
  /**
   * The path as requested, under the service's base and without the query (cut at 200
   * characters), e.g. `/get/license/L-1` for the route `/get/:eventObjectType/:eventObjectId`.
   */
  path: string;
  /** HTTP status, or null when none was sent (see `outcome`). */
  status: number | null;
  /** Why there is no status, or why the answer did not arrive whole. */
  outcome?: RequestOutcome;
  /** Time from the request's arrival to its answer, in ms. */
  ms: number;
  /** `sub` of the authenticated caller (an ID token's user, or `service`). */
  caller?: string;
  /** The device (`hw` parameter) of a licensing request. */
  hw?: string;
  /** The service that issued a lease answer: a 2xx of `/authz/.jwt`, `/authz/.json` or checkout. */
  servedBy?: 'main' | 'standby';
  /**
   * What a licensing request was, once its route parsed it: `consume`, `renew` (every item named
   * its lease), `consume+renew`, or `release`.
   */
  kind?: LicensingKind;
  /** Items requested, or lease ids released. */
  items?: number;
  /** Of `items`, those answered with a lease (a release: every id). */
  granted?: number;
  /** The request's W3C `traceparent` header, when it had a valid one. */
  traceparent?: string;
}

/** Most entries kept by default: older ones are dropped (readers are told how many). */
export const DEFAULT_REQUEST_LOG_CAPACITY = 1000;

/** Delay that gathers the entries of a busy moment into one notification, in ms. */
const NOTIFY_DELAY_MS = 100;

/**
 * The live request log: a ring buffer of the last `capacity` entries with increasing `seq`.
 * Recording is O(1) and never waits on a reader: readers are told, at most every 100 ms, that
 * there is more, and read what they missed with {@link RequestLog.since} (learning how many
 * entries were overwritten before they got to them). Memory stays bounded however busy the
 * server and however slow the readers.
 *
 * @example
 * const log = new RequestLog();
 * const stop = log.subscribe(() => send(log.since(cursor)));
 * log.record({ at: Date.now(), service: 'main', method: 'GET', route: '/authz/.jwt', status: 200, ms: 3 });
 */
export class RequestLog {
  readonly #ring: (RequestLogEntry | undefined)[];
  #last = 0;
  readonly #listeners = new Set<() => void>();
  #timer: NodeJS.Timeout | undefined;

  /** @param capacity - entries kept (default {@link DEFAULT_REQUEST_LOG_CAPACITY}) */
  constructor(readonly capacity: number = DEFAULT_REQUEST_LOG_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new TypeError('capacity must be a positive integer');
    }
    this.#ring = new Array(capacity);
  }

  /** `seq` of the newest entry (0 when none). */
  get lastSeq(): number {
    return this.#last;
  }

  /** Readers subscribed now. */
  get subscriberCount(): number {
    return this.#listeners.size;
  }

  /** Adds an entry (its `seq` is assigned here). */
  record(entry: Omit<RequestLogEntry, 'seq'>): void {
    const seq = ++this.#last;
    this.#ring[seq % this.capacity] = { seq, ...entry };
    if (this.#listeners.size > 0 && this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#notify(), NOTIFY_DELAY_MS);
      this.#timer.unref();
    }
  }

  /**
   * Entries after `seq`, oldest first, at most `limit` of them, and how many entries after
   * `seq` were overwritten already (`dropped`).
   */
  since(seq: number, limit = this.capacity): { entries: RequestLogEntry[]; dropped: number } {
    const oldest = Math.max(1, this.#last - this.capacity + 1);
    const from = Math.max(seq + 1, oldest);
    const dropped = Math.max(0, oldest - (seq + 1));
    const to = Math.min(this.#last, from + limit - 1);
    const entries: RequestLogEntry[] = [];
    for (let i = from; i <= to; i++) entries.push(this.#ring[i % this.capacity]!);
    return { entries, dropped };
  }

  /**
   * Every kept entry after `seq` that `filter` accepts, oldest first, and how many entries after
   * `seq` were overwritten already (`dropped`).
   */
  find(
    seq: number,
    filter: (entry: RequestLogEntry) => boolean,
  ): { entries: RequestLogEntry[]; dropped: number } {
    const { entries, dropped } = this.since(seq);
    return { entries: entries.filter(filter), dropped };
  }

  /** Calls `listener` (at most every 100 ms) after entries were added; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  #notify(): void {
    this.#timer = undefined;
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // A reader's failure is its own; the others still hear.
      }
    }
  }
}
