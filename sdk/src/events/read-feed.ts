import { LicensingError } from '../errors.js';
import type { FeedEvent } from './event-kinds.js';
import { type EventServiceContext, fetchFeedPage } from './feed-page.js';
import { type FeedSelector, resolveFeed } from './feed-selector.js';
import { checkInteger, checkSignal, MAX_PAGE_SIZE, optionalTimestamp } from './read-options.js';
import type { EventTimestamp } from './timestamp.js';

/** Options of `read`, `pages` and `collect`. */
export interface ReadOptions {
  /** Only events received after this timestamp (exclusive). `bigint` or decimal digits. */
  after?: EventTimestamp | string;
  /** Only events received before this timestamp (exclusive). `bigint` or decimal digits. */
  before?: EventTimestamp | string;
  /**
   * `'oldest-first'` (default) walks the range forward from `after` (or the feed's start),
   * following the feed's newer instructions; `'newest-first'` walks back from `before` (or the
   * feed's end), following its older instructions.
   */
  order?: 'oldest-first' | 'newest-first';
  /** Events per request (`maxEventCount`), 1 to 10 000. Default: the client's `pageSize` (1000). */
  pageSize?: number;
  /** Stop after this many events in total, without a further request. Default: no limit. */
  limit?: number;
  /** Aborts the walk: the iterator throws `signal.reason`. */
  signal?: AbortSignal;
}

/** One page of a feed walk. */
export interface FeedPage {
  /** The page's events, in the walk's order. */
  events: FeedEvent[];
  /**
   * Where the walk continues: pass it as `after` (oldest-first) or `before` (newest-first),
   * with the same other bounds, to resume after this page. Decimal digits of a timestamp.
   */
  cursor: string;
  /** True when the walk will request another page. */
  hasMore: boolean;
}

/** Page size the client resolved, passed down to the walk. */
export interface ReadDefaults {
  pageSize: number;
}

/**
 * Walks a feed page by page (lazily: one request per `next()` that needs one). Validates the
 * arguments at once; requests start on the first `next()`.
 */
export function readFeedPages(
  context: EventServiceContext,
  defaults: ReadDefaults,
  feedSelector: FeedSelector,
  options: ReadOptions = {},
): AsyncGenerator<FeedPage, void, undefined> {
  const feed = resolveFeed(feedSelector);
  let after = optionalTimestamp(options.after, 'after');
  let before = optionalTimestamp(options.before, 'before');
  const order = options.order ?? 'oldest-first';
  if (order !== 'oldest-first' && order !== 'newest-first') {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      "order is neither 'oldest-first' nor 'newest-first'. Pass one of them.",
    );
  }
  const pageSize = checkInteger(
    options.pageSize ?? defaults.pageSize,
    'pageSize',
    1,
    MAX_PAGE_SIZE,
  );
  const limit =
    options.limit === undefined
      ? Number.POSITIVE_INFINITY
      : checkInteger(options.limit, 'limit', 1, Number.MAX_SAFE_INTEGER);
  const signal = checkSignal(options.signal);
  const forward = order === 'oldest-first';

  return (async function* walk() {
    let remaining = limit;
    for (;;) {
      signal?.throwIfAborted();
      const maxEventCount = Math.min(pageSize, remaining);
      const result = await fetchFeedPage(
        context,
        feed,
        { after, before, maxEventCount, newest: !forward },
        signal,
      );
      if (!result.ok) throw result.error;
      const { page } = result;
      // Keep only events inside the current bounds, strictly ascending: a server that repeats
      // or overlaps must not make the walk yield an event twice.
      const inRange = ascendingWithin(page.events, after, before);
      const kept = forward ? inRange.slice(0, maxEventCount) : inRange.slice(-maxEventCount);
      const events = forward ? kept : [...kept].reverse();
      remaining -= events.length;

      const instruction = forward ? page.newer : page.older;
      const edge = forward ? kept.at(-1)?.eventReceived : kept[0]?.eventReceived;
      const bound = forward ? after : before;
      // If the server sent more than asked and some were cut, its instruction points past them.
      const trimmed = kept.length < inRange.length;
      const next = (trimmed ? undefined : instruction.timestamp) ?? edge ?? bound;
      // A short page ends the walk, unless the far side is open and the instruction counts more
      // events there (a server capping maxEventCount below ours): then counts are authoritative.
      // With a far bound, a count also covers events beyond it, so it cannot prove more in range.
      const farSideOpen = forward ? before === undefined : after === undefined;
      const countsMore = instruction.count === -1 || (instruction.count ?? 0) > 0;
      const exhausted =
        !trimmed &&
        (instruction.count === 0 ||
          (page.events.length < maxEventCount && !(farSideOpen && countsMore)));
      const hasMore = !exhausted && remaining > 0;
      if (hasMore && !advances(next, bound, forward)) {
        throw new LicensingError(
          'FEED_CURSOR_REPEATED',
          `The event service sent the cursor ${String(next)} again for feed ${feed.name}: stopping instead of looping. Check the event service (eventUrl): its paging is broken.`,
        );
      }
      yield { events, cursor: (next ?? 0n).toString(), hasMore };
      if (!hasMore) return;
      if (forward) after = next;
      else before = next;
    }
  })();
}

/** Walks a feed event by event: {@link readFeedPages} flattened. */
export async function* readFeedEvents(
  pages: AsyncIterable<FeedPage>,
  signal: AbortSignal | undefined,
): AsyncGenerator<FeedEvent, void, undefined> {
  for await (const page of pages) {
    for (const event of page.events) {
      signal?.throwIfAborted();
      yield event;
    }
  }
}

function advances(
  next: EventTimestamp | undefined,
  bound: EventTimestamp | undefined,
  forward: boolean,
): next is EventTimestamp {
  if (next === undefined) return false;
  if (bound === undefined) return true;
  return forward ? next > bound : next < bound;
}

function ascendingWithin(
  events: FeedEvent[],
  after: EventTimestamp | undefined,
  before: EventTimestamp | undefined,
): FeedEvent[] {
  const kept: FeedEvent[] = [];
  let last = after;
  for (const event of events) {
    const ts = event.eventReceived;
    if ((last === undefined || ts > last) && (before === undefined || ts < before)) {
      kept.push(event);
      last = ts;
    }
  }
  return kept;
}
