import { LicensingError } from '../errors.js';
import { type EventClientOptions, resolveEventClientOptions } from '../options/event-client.js';
import { createFetchAttempt } from '../transport/fetch-attempt.js';
import type { FeedEvent } from './event-kinds.js';
import type { EventServiceContext } from './feed-page.js';
import type { FeedSelector } from './feed-selector.js';
import { type FollowOptions, followFeed } from './follow-feed.js';
import { type PutAllOptions, type PutAllResult, putAllEvents } from './put-all.js';
import { type NewEvent, type PutOptions, putEvents } from './put-events.js';
import { type FeedPage, type ReadOptions, readFeedEvents, readFeedPages } from './read-feed.js';
import { createReadTokenSource } from './read-token.js';

export type { EventClientOptions } from '../options/event-client.js';

/** A `collect` call: {@link ReadOptions} with a required `limit`. */
export type CollectOptions = ReadOptions & { limit: number };

/** Reads, follows and writes event feeds. */
export interface EventClient {
  /**
   * Events of a feed over a range, fetched lazily page by page. Stops at the end of the range,
   * at `limit` (without another request) or on `break`; aborting throws `signal.reason`.
   *
   * @example
   * for await (const event of events.read('billing', { order: 'newest-first', limit: 50 })) {
   *   console.log(event.eventReceived_str, event.eventType);
   * }
   */
  read(feed: FeedSelector, options?: ReadOptions): AsyncIterable<FeedEvent>;
  /**
   * The same walk as {@link EventClient.read}, a page at a time, each with a resumable `cursor`.
   *
   * @example
   * for await (const page of events.pages('billing', { after: savedCursor, pageSize: 500 })) {
   *   await store(page.events);
   *   savedCursor = page.cursor;
   * }
   */
  pages(feed: FeedSelector, options?: ReadOptions): AsyncIterable<FeedPage>;
  /**
   * {@link EventClient.read} into an array. `limit` is required so a big feed cannot exhaust memory.
   *
   * @example
   * const latest = await events.collect('billing', { order: 'newest-first', limit: 10 });
   */
  collect(feed: FeedSelector, options: CollectOptions): Promise<FeedEvent[]>;
  /**
   * Tails a feed forever with long polling, oldest first, from `after` (a saved
   * `eventReceived_str`) or the feed's start. Retries network errors, timeouts, 5xx, 408, 429
   * and a throwing token provider with backoff and jitter; never skips or repeats an event across reconnects. It never ends by
   * itself: aborting `signal` makes the iterator throw `signal.reason`; `break` stops it too.
   *
   * @example
   * for await (const event of events.follow('billing', { after: loadCursor() })) {
   *   await handle(event);
   *   saveCursor(event.eventReceived_str);
   * }
   */
  follow(feed: FeedSelector, options?: FollowOptions): AsyncIterable<FeedEvent>;
  /**
   * Writes one event or a batch (all-or-nothing) as a compact JWS signed by `signer`. Resolves
   * when the service answered 201. Refuses invalid events before sending (INVALID_ARGUMENT);
   * service refusals reject with an ApiResponseError carrying `status`, `error` and
   * `errorDescription`.
   *
   * @example
   * await events.put(
   *   { eventType: 'InvoicePaid', eventSourceId: 'billing', data: { invoice: 'INV-1' } },
   *   { signer: { privateKey: pkcs8Pem, alg: 'RS256', kid: 'writer-1' } },
   * );
   */
  put(events: NewEvent | readonly NewEvent[], options?: PutOptions): Promise<void>;
  /**
   * Writes many batches in order, signing the next batch while the last one is in flight (about
   * twice the throughput of awaiting `put` for each). Stops at the first failure and rejects with
   * its error: every batch before it was stored and reported to `onBatchWritten`, none after it.
   *
   * @example
   * const { events: written } = await events.putAll(batchesOf100(queue), {
   *   onBatchWritten: (i) => queue.ack(i),
   * });
   */
  putAll(
    batches: Iterable<readonly NewEvent[]> | AsyncIterable<readonly NewEvent[]>,
    options?: PutAllOptions,
  ): Promise<PutAllResult>;
}

/**
 * Creates a client for the event data service. Runs anywhere with `fetch` and WebCrypto.
 * Option errors throw an `InvalidOptionError` (code `INVALID_ARGUMENT`) naming the option.
 *
 * @example
 * import { createEventClient, timestampToDate } from '@standby-licensing/sdk';
 *
 * const events = createEventClient({
 *   eventUrl: 'http://127.0.0.1:8787/events',
 *   auth: { token: () => process.env.EVENT_READ_TOKEN ?? '' },
 * });
 * for await (const event of events.read('billing', { limit: 100 })) {
 *   console.log(timestampToDate(event.eventReceived), event.eventType);
 * }
 */
export function createEventClient(options: EventClientOptions): EventClient {
  const { eventUrl, now, timeoutMs, pageSize, auth, signer, fetch } =
    resolveEventClientOptions(options);
  const send = createFetchAttempt(fetch);
  const context: EventServiceContext = {
    eventUrl,
    send,
    now,
    timeoutMs,
    readToken: createReadTokenSource(auth, now),
  };
  const putContext = { eventUrl, send, now, timeoutMs, signer, keys: new WeakMap() };
  const defaults = { pageSize };

  const pages = (feed: FeedSelector, readOptions?: ReadOptions) =>
    readFeedPages(context, defaults, feed, readOptions);
  const read = (feed: FeedSelector, readOptions?: ReadOptions) =>
    readFeedEvents(pages(feed, readOptions), readOptions?.signal);

  return {
    read,
    pages,
    async collect(feed, collectOptions) {
      if (collectOptions?.limit === undefined) {
        throw new LicensingError(
          'INVALID_ARGUMENT',
          'collect() got no limit. Pass { limit }: the most events to collect.',
        );
      }
      const events: FeedEvent[] = [];
      for await (const event of read(feed, collectOptions)) events.push(event);
      return events;
    },
    follow: (feed, followOptions) => followFeed(context, defaults, feed, followOptions),
    put: (events, putOptions) => putEvents(putContext, events, putOptions),
    putAll: (batches, putOptions) => putAllEvents(putContext, batches, putOptions),
  };
}
