import pRetry from 'p-retry';
import { LicensingError } from '../errors.js';
import { abortableDelay } from '../internal/abortable-delay.js';
import { computeBackoffDelay } from '../internal/backoff.js';
import { DEFAULTS } from '../options/defaults.js';
import type { FeedEvent } from './event-kinds.js';
import {
  type EventServiceContext,
  type FeedFetchResult,
  fetchFeedPage,
  type RawFeedPage,
} from './feed-page.js';
import { type FeedSelector, resolveFeed } from './feed-selector.js';
import { checkInteger, checkSignal, MAX_PAGE_SIZE, optionalTimestamp } from './read-options.js';
import type { EventTimestamp } from './timestamp.js';

/** What {@link FollowOptions.onRetry} is told before each wait. */
export interface FollowRetryInfo {
  /** The failure: a LicensingError (ApiResponseError for HTTP statuses). */
  error: LicensingError;
  /** 1 for the first retry after a success. */
  attempt: number;
  /** How long the follower waits before the next request, in ms. */
  delayMs: number;
}

/** Options of `follow`. */
export interface FollowOptions {
  /**
   * Resume after this timestamp: the `eventReceived_str` of the last event you handled.
   * Default: from the start of the feed.
   */
  after?: EventTimestamp | string;
  /** Long-poll: the server holds each request up to this long for a new event, in ms. Default 30 000; at most 60 000. */
  maxWaitMs?: number;
  /** Long-poll: the server waits at least this long to gather events, in ms. Default 0. */
  minWaitMs?: number;
  /** Events per request (`maxEventCount`), 1 to 10 000. Default: the client's `pageSize` (1000). */
  pageSize?: number;
  /** First retry delay after a failure, in ms; doubles per failure, with jitter. Default 1000. */
  retryDelayMs?: number;
  /** Longest retry delay, in ms (a longer `Retry-After` still wins). Default 30 000. */
  maxRetryDelayMs?: number;
  /**
   * Least time between two requests that brought no event, in ms, so a server that answers
   * empty at once is not hammered. Default 1000.
   */
  minPollIntervalMs?: number;
  /** Called before each retry wait (for logs and metrics). */
  onRetry?: (info: FollowRetryInfo) => void;
  /** Stops following: the iterator throws `signal.reason`. */
  signal?: AbortSignal;
  /** Random source in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
}

/** Page size the client resolved. */
export interface FollowDefaults {
  pageSize: number;
}

/** A failed page request inside the reconnect loop (internal to {@link followFeed}). */
class PageFailure extends Error {
  override name = 'PageFailure';
  readonly result: Exclude<FeedFetchResult, { ok: true }>;

  constructor(result: Exclude<FeedFetchResult, { ok: true }>) {
    super(result.error.message, { cause: result.error });
    this.result = result;
  }
}

/**
 * Tails a feed forever with long polling. The cursor only moves to the `eventReceived` of an
 * event the iterator has delivered, so a reconnect neither skips nor repeats events. Transient
 * failures (network, timeout, 5xx, 408, 429, a throwing token provider) wait with exponential
 * backoff and jitter (honouring `Retry-After`); other failures end the iterator with their error.
 */
export function followFeed(
  context: EventServiceContext,
  defaults: FollowDefaults,
  feedSelector: FeedSelector,
  options: FollowOptions = {},
): AsyncGenerator<FeedEvent, void, undefined> {
  const feed = resolveFeed(feedSelector);
  let cursor: EventTimestamp = optionalTimestamp(options.after, 'after') ?? 0n;
  const d = DEFAULTS.follow;
  const maxWaitMs = checkInteger(options.maxWaitMs ?? d.maxWaitMs, 'maxWaitMs', 0, 60_000);
  const minWaitMs = checkInteger(options.minWaitMs ?? d.minWaitMs, 'minWaitMs', 0, 60_000);
  const pageSize = checkInteger(
    options.pageSize ?? defaults.pageSize,
    'pageSize',
    1,
    MAX_PAGE_SIZE,
  );
  const baseMs = checkInteger(options.retryDelayMs ?? d.retryDelayMs, 'retryDelayMs', 1, 3_600_000);
  const maxMs = checkInteger(
    options.maxRetryDelayMs ?? d.maxRetryDelayMs,
    'maxRetryDelayMs',
    1,
    3_600_000,
  );
  const minPollIntervalMs = checkInteger(
    options.minPollIntervalMs ?? d.minPollIntervalMs,
    'minPollIntervalMs',
    0,
    3_600_000,
  );
  const signal = checkSignal(options.signal);
  const { onRetry } = options;
  const random = options.random ?? Math.random;

  const isTransient = (error: unknown): error is PageFailure =>
    error instanceof PageFailure && error.result.transient;

  /**
   * The next page after `cursor`, reconnecting on p-retry until one arrives: transient failures
   * (network, timeout, 5xx, 408, 429, a throwing token provider) wait with jittered exponential
   * backoff, or the server's `Retry-After` when longer (p-retry's own delay is 0 because the wait
   * depends on the failure); any other failure ends the follow with its error.
   */
  async function nextPage(started: { at: number }): Promise<RawFeedPage> {
    try {
      return await pRetry(
        async () => {
          started.at = context.now();
          const result = await fetchFeedPage(
            context,
            feed,
            { after: cursor, maxEventCount: pageSize, newest: false, minWaitMs, maxWaitMs },
            signal,
          );
          if (!result.ok) throw new PageFailure(result);
          return result.page;
        },
        {
          retries: Number.POSITIVE_INFINITY,
          minTimeout: 0,
          maxTimeout: 0,
          ...(signal ? { signal } : {}),
          shouldRetry: ({ error }) => isTransient(error),
          onFailedAttempt: async ({ error, attemptNumber }) => {
            if (!isTransient(error)) return;
            const backoff = computeBackoffDelay(attemptNumber - 1, { baseMs, maxMs, random });
            const delayMs = Math.max(backoff, error.result.retryAfterMs ?? 0);
            onRetry?.({ error: error.result.error, attempt: attemptNumber, delayMs });
            await abortableDelay(delayMs, signal);
          },
        },
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error instanceof PageFailure ? error.result.error : error;
    }
  }

  return (async function* tail() {
    for (;;) {
      signal?.throwIfAborted();
      const started = { at: context.now() };
      const page = await nextPage(started);
      const startedAt = started.at;
      let delivered = 0;
      for (const event of page.events) {
        // Only strictly newer events: never repeat one, even if the server sends it again.
        if (event.eventReceived <= cursor) continue;
        signal?.throwIfAborted();
        cursor = event.eventReceived;
        delivered += 1;
        yield event;
      }
      if (delivered === 0 && page.events.length > 0) {
        throw new LicensingError(
          'FEED_CURSOR_REPEATED',
          `The event service answered after=${cursor} with no newer event for feed ${feed.name}: stopping instead of looping. Check the event service (eventUrl): its paging is broken.`,
        );
      }
      if (delivered === 0) {
        const elapsed = context.now() - startedAt;
        if (elapsed < minPollIntervalMs) await abortableDelay(minPollIntervalMs - elapsed, signal);
      }
    }
  })();
}
