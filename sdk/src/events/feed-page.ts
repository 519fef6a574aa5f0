import { LicensingError } from '../errors.js';
import { classifyOutcome, type ExpectedBody } from '../transport/classify-outcome.js';
import type { HttpSend } from '../transport/http-attempt.js';
import type { FeedEvent } from './event-kinds.js';
import type { ResolvedFeed } from './feed-selector.js';
import type { ReadTokenSource } from './read-token.js';
import { type EventTimestamp, timestampFromDigits } from './timestamp.js';

/** What the feed readers need from the client: resolved options, nothing else. */
export interface EventServiceContext {
  /** Base URL without a trailing slash. */
  eventUrl: string;
  /** The event client's HTTP sender (plain `fetch`, resolved at call time; ADR 0025). */
  send: HttpSend;
  now: () => number;
  /** Per-request timeout, in ms (long polls add their `maxWaitMs`). */
  timeoutMs: number;
  readToken: ReadTokenSource;
}

/** Query of one feed request. */
export interface FeedQuery {
  after?: EventTimestamp | undefined;
  before?: EventTimestamp | undefined;
  maxEventCount: number;
  newest: boolean;
  minWaitMs?: number | undefined;
  maxWaitMs?: number | undefined;
}

/** A feed's paging instruction, with its target timestamp read exactly from the url. */
export interface FeedInstruction {
  /** `after` (newer) or `before` (older) of the instruction url, when it has one. */
  timestamp: EventTimestamp | undefined;
  /** Events available: undefined when unknown, -1 at least one, else exact. */
  count: number | undefined;
}

/** One parsed feed response. */
export interface RawFeedPage {
  /** The events as the server sent them (ascending), `eventReceived` a bigint. */
  events: FeedEvent[];
  older: FeedInstruction;
  newer: FeedInstruction;
}

/**
 * Result of {@link fetchFeedPage}: a page, or the mapped error, whether a later attempt may
 * succeed (network, timeout, 5xx, 408, 429, a failing token provider) and any `Retry-After`.
 */
export type FeedFetchResult =
  | { ok: true; page: RawFeedPage }
  | { ok: false; error: LicensingError; transient: boolean; retryAfterMs: number | undefined };

/** A feed body (any other 2xx body is an outage of the event service, transient). */
const EXPECT_FEED: ExpectedBody = {
  kind: 'json',
  what: 'a feed',
  read: (json) => readFeedBody(json),
};

/**
 * GETs one page of a feed. Never retries and never throws for service failures (the caller owns
 * retries); only the caller's abort rejects, with the signal's reason.
 */
export async function fetchFeedPage(
  context: EventServiceContext,
  feed: ResolvedFeed,
  query: FeedQuery,
  signal: AbortSignal | undefined,
): Promise<FeedFetchResult> {
  const url = feedUrl(context.eventUrl, feed, query);
  let token: string | undefined;
  try {
    token = await context.readToken(feed);
  } catch (cause) {
    signal?.throwIfAborted();
    const error =
      cause instanceof LicensingError
        ? cause
        : new LicensingError(
            'UNAUTHORIZED',
            'Could not get a read token for the event service. Check auth.token or auth.privateKey of the event client.',
            {
              cause,
            },
          );
    // A provider that throws may be calling an identity provider that is briefly down: worth
    // retrying. The SDK's own refusals (bad key, empty token) are not.
    const transient = !(cause instanceof LicensingError) || cause.code === 'SERVICE_UNAVAILABLE';
    return { ok: false, error, transient, retryAfterMs: undefined };
  }
  const timeoutMs = context.timeoutMs + (query.maxWaitMs ?? 0);
  const outcome = await context.send({
    url,
    headers: {
      Accept: 'application/json',
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
    },
    timeoutMs,
    signal,
  });
  const verdict = classifyOutcome(outcome, {
    service: 'events',
    expect: EXPECT_FEED,
    now: context.now(),
    timeoutMs,
  });
  if (verdict.ok) return { ok: true, page: verdict.value as RawFeedPage };
  return {
    ok: false,
    error: verdict.error,
    transient: verdict.outage,
    retryAfterMs: verdict.retryAfterMs,
  };
}

function feedUrl(eventUrl: string, feed: ResolvedFeed, query: FeedQuery): string {
  const params = new URLSearchParams();
  if (query.after !== undefined) params.set('after', query.after.toString());
  if (query.before !== undefined) params.set('before', query.before.toString());
  params.set('maxEventCount', String(query.maxEventCount));
  params.set('newest', String(query.newest));
  if (query.minWaitMs) params.set('minWaitMs', String(query.minWaitMs));
  if (query.maxWaitMs) params.set('maxWaitMs', String(query.maxWaitMs));
  return `${eventUrl}/get/${feed.path}?${params}`;
}

/**
 * Reads a parsed feed body (the classifier parsed it once). Timestamps come from
 * `eventReceived_str` only: the JSON number has already lost digits once `JSON.parse` has read it.
 */
export function readFeedBody(body: unknown): RawFeedPage {
  const objects = (body as { objects?: unknown } | null)?.objects;
  if (!Array.isArray(objects)) throw new TypeError('feed body has no objects array');
  const older: FeedInstruction = { timestamp: undefined, count: undefined };
  const newer: FeedInstruction = { timestamp: undefined, count: undefined };
  const events: FeedEvent[] = [];
  for (const item of objects) {
    if (typeof item !== 'object' || item === null)
      throw new TypeError('feed item is not an object');
    const record = item as Record<string, unknown>;
    if (record.eventType === 'instruction') {
      const target = record.instruction === 'older' ? older : newer;
      const param = record.instruction === 'older' ? 'before' : 'after';
      target.timestamp = instructionTimestamp(record.url, param);
      target.count = typeof record.count === 'number' ? record.count : undefined;
      continue;
    }
    const eventReceived = timestampFromDigits(record.eventReceived_str);
    if (eventReceived === undefined) {
      throw new TypeError('feed event has no eventReceived_str of decimal digits');
    }
    events.push({ ...record, eventReceived } as FeedEvent);
  }
  return { events, older, newer };
}

function instructionTimestamp(url: unknown, param: 'after' | 'before'): bigint | undefined {
  if (typeof url !== 'string') return undefined;
  return timestampFromDigits(new URL(url, 'http://feed.invalid/get/').searchParams.get(param));
}
