/**
 * Parses a `Retry-After` header (delta seconds or an HTTP date) into ms from `now`.
 * Returns undefined when absent or unparseable; never negative.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
