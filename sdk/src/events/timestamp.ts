import { LicensingError } from '../errors.js';

/**
 * An event timestamp: nanoseconds since 1970-01-01T00:00:00Z. Always a `bigint`, because the
 * values exceed `Number.MAX_SAFE_INTEGER` and two events in the same millisecond differ only in
 * the last digits.
 */
export type EventTimestamp = bigint;

const INT64_MAX = 9_223_372_036_854_775_807n;
const NS_PER_MS = 1_000_000n;

/**
 * Reads a timestamp given as a `bigint` or as decimal digits (e.g. `eventReceived_str` or a
 * saved cursor). Numbers are refused: they cannot hold nanosecond timestamps exactly.
 *
 * @param value - `bigint` or a string of decimal digits, 0 to 2^63-1.
 * @param name - Option name used in the error message.
 * @throws LicensingError `INVALID_ARGUMENT` for anything else.
 * @example
 * parseTimestamp('1800000000000000001'); // 1800000000000000001n
 */
export function parseTimestamp(value: unknown, name = 'timestamp'): EventTimestamp {
  const parsed = typeof value === 'bigint' ? value : timestampFromDigits(value);
  if (parsed === undefined || parsed < 0n || parsed > INT64_MAX) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} is not a bigint or a string of decimal digits (nanoseconds since the epoch): got ${describe(value)}. Pass an eventReceived value or a cursor as the service gave it.`,
    );
  }
  return parsed;
}

/** The timestamp in decimal digits (0 to 2^63-1), or undefined for anything else. */
export function timestampFromDigits(value: unknown): EventTimestamp | undefined {
  if (typeof value !== 'string' || !/^\d{1,19}$/.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed <= INT64_MAX ? parsed : undefined;
}

/**
 * The timestamp of a `Date` (its milliseconds times 1 000 000).
 *
 * @example
 * const after = timestampFromDate(new Date(Date.now() - 3_600_000)); // the last hour
 */
export function timestampFromDate(date: Date): EventTimestamp {
  const ms = date.getTime();
  if (!Number.isFinite(ms) || ms < 0) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      'date is not a valid Date at or after 1970. Pass a Date from 1970 on.',
    );
  }
  return BigInt(ms) * NS_PER_MS;
}

/**
 * The `Date` of a timestamp, truncated to the millisecond (a `Date` holds no more).
 *
 * @example
 * timestampToDate(event.eventReceived).toISOString();
 */
export function timestampToDate(timestamp: EventTimestamp | string): Date {
  return new Date(Number(parseTimestamp(timestamp) / NS_PER_MS));
}

/**
 * Compares two timestamps exactly (as `bigint`): negative, zero or positive, for `sort`.
 *
 * @example
 * events.sort((a, b) => compareTimestamps(a.eventReceived, b.eventReceived));
 */
export function compareTimestamps(
  a: EventTimestamp | string,
  b: EventTimestamp | string,
): -1 | 0 | 1 {
  const x = parseTimestamp(a);
  const y = parseTimestamp(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function describe(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value;
}
