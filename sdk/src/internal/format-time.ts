/**
 * A time in ms since the epoch as ISO 8601 text for messages, never throwing: a value outside
 * what a `Date` can hold (an edited store's `1e999`) reads as its number instead of raising a
 * `RangeError` from inside an error message.
 *
 * @example
 * formatTime(0); // '1970-01-01T00:00:00.000Z'
 * formatTime(9e15); // '9000000000000000 ms'
 */
export function formatTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${String(ms)} ms` : date.toISOString();
}
