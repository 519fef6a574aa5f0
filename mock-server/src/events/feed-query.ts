import { ApiError } from '../http/api-error.js';

/** Defaults and caps of the feed query parameters (docs/protocol.md "Reading feeds"). */
export const FEED_QUERY_LIMITS = {
  defaultMaxEventCount: 1000,
  maxEventCountCap: 10_000,
  maxWaitMsCap: 60_000,
} as const;

/** A feed read's query after defaults: timestamps as BigInt, durations in milliseconds. */
export interface FeedQuery {
  /** Only events received after this timestamp (ns, exclusive). */
  after: bigint | undefined;
  /** Only events received before this timestamp (ns, exclusive). */
  before: bigint | undefined;
  /** At most this many events (default 1000, capped at 10 000). */
  maxEventCount: number;
  /** Newest (true) or oldest (false) events of a larger range; default true, but false with `after`. */
  newest: boolean;
  /** Long poll: wait at least this long for more events once one is there (default 0). */
  minWaitMs: number;
  /** Long poll: wait at most this long for a first event (default 0, capped at 60 000). */
  maxWaitMs: number;
}

const DIGITS = /^[0-9]+$/;

function invalid(description: string): ApiError {
  return new ApiError(400, 'invalid_request', description);
}

function one(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`${name} must be given once`);
  return value;
}

function timestamp(query: Record<string, unknown>, name: string): bigint | undefined {
  const text = one(query, name);
  if (text === undefined) return undefined;
  // Parsed as BigInt: nanosecond timestamps exceed Number's exact integers.
  if (!DIGITS.test(text)) throw invalid(`${name} must be a non-negative integer (nanoseconds)`);
  return BigInt(text);
}

function integer(query: Record<string, unknown>, name: string, fallback: number, cap: number) {
  const text = one(query, name);
  if (text === undefined) return fallback;
  if (!DIGITS.test(text)) throw invalid(`${name} must be a non-negative integer`);
  const value = Number(text);
  return Math.min(value, cap);
}

/**
 * Parses the query of a feed read (raw strings, as Fastify hands them over) and applies the
 * defaults and caps. Throws a 400 `invalid_request` ApiError for non-numeric or negative values.
 *
 * @example
 * parseFeedQuery({ after: '1800000000000000001', maxEventCount: '50' });
 * // { after: 1800000000000000001n, before: undefined, maxEventCount: 50, newest: false, ... }
 */
export function parseFeedQuery(query: Record<string, unknown>): FeedQuery {
  const after = timestamp(query, 'after');
  const before = timestamp(query, 'before');
  const newestText = one(query, 'newest');
  if (newestText !== undefined && newestText !== 'true' && newestText !== 'false') {
    throw invalid('newest must be true or false');
  }
  const maxWaitMs = integer(query, 'maxWaitMs', 0, FEED_QUERY_LIMITS.maxWaitMsCap);
  return {
    after,
    before,
    maxEventCount: integer(
      query,
      'maxEventCount',
      FEED_QUERY_LIMITS.defaultMaxEventCount,
      FEED_QUERY_LIMITS.maxEventCountCap,
    ),
    // `after` without an explicit `newest` pages forward, as feed readers following newer
    // instructions expect.
    newest: newestText === undefined ? after === undefined : newestText === 'true',
    minWaitMs: integer(query, 'minWaitMs', 0, FEED_QUERY_LIMITS.maxWaitMsCap),
    maxWaitMs,
  };
}
