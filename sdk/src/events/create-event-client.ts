import { LicensingError } from '../errors.js';
import { option } from '../internal/validate-option.js';
import { DEFAULTS, resolveFetch } from '../options.js';
import { createFetchAttempt } from '../transport/fetch-attempt.js';
import type { FeedEvent } from './event-kinds.js';
import type { EventServiceContext } from './feed-page.js';
import type { FeedSelector } from './feed-selector.js';
import { type FollowOptions, followFeed } from './follow-feed.js';
import { type PutAllOptions, type PutAllResult, putAllEvents } from './put-all.js';
import { type EventSigner, type NewEvent, type PutOptions, putEvents } from './put-events.js';
import { type FeedPage, type ReadOptions, readFeedEvents, readFeedPages } from './read-feed.js';
import { MAX_PAGE_SIZE } from './read-options.js';
import { createReadTokenSource, type EventReadAuth } from './read-token.js';

/** Options of {@link createEventClient}. */
export interface EventClientOptions {
  /** Base URL of the event service, e.g. `http://127.0.0.1:8787/events`. */
  eventUrl: string;
  /**
   * Read authorization: `{ token }` (a ready Bearer token provider) or `{ privateKey, alg?, kid?,
   * ttlMs?, scope? }` (the SDK signs short-lived read JWTs). Default: no `Authorization` header.
   */
  auth?: EventReadAuth;
  /** Default signer of {@link EventClient.put}. */
  signer?: EventSigner;
  /** Events per read request (`maxEventCount`), 1 to 10 000. Default 1000. */
  pageSize?: number;
  /** Per-request timeout, in ms (long polls add their `maxWaitMs`). Default 30 000. */
  timeoutMs?: number;
  /** The `fetch` to use, called as a plain function at call time. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Clock for token lifetimes and `Retry-After` dates, ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

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

const ALLOWED = ['eventUrl', 'auth', 'signer', 'pageSize', 'timeoutMs', 'fetch', 'now'];

/**
 * Creates a client for the event data service. Runs anywhere with `fetch` and WebCrypto.
 * Option errors throw an `InvalidOptionError` (a `TypeError`) naming the option.
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
  const o = option.object('options', options);
  option.knownKeys('', o, ALLOWED);
  const d = DEFAULTS.events;
  const eventUrl = resolveEventUrl(options.eventUrl);
  const send = createFetchAttempt(resolveFetch('fetch', options.fetch));
  const now = option.fn('now', options.now, Date.now);
  const pageSize = option.number('pageSize', options.pageSize, d.pageSize, {
    min: 1,
    max: MAX_PAGE_SIZE,
    integer: true,
  });
  const timeoutMs = option.number('timeoutMs', options.timeoutMs, d.timeoutMs, { min: 1 });
  if (options.signer !== undefined) option.object('signer', options.signer);

  const context: EventServiceContext = {
    eventUrl,
    send,
    now,
    timeoutMs,
    readToken: createReadTokenSource(options.auth, now),
  };
  const putContext = {
    eventUrl,
    send,
    now,
    timeoutMs,
    signer: options.signer,
    keys: new WeakMap<EventSigner, Promise<CryptoKey>>(),
  };
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
        throw new LicensingError('INVALID_ARGUMENT', 'collect needs a limit');
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

function resolveEventUrl(value: unknown): string {
  if (typeof value !== 'string') option.fail('eventUrl', 'Expected `eventUrl` to be a URL string');
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    return option.fail('eventUrl', 'Expected `eventUrl` to be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    option.fail('eventUrl', 'Expected `eventUrl` to be an http(s) URL');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
