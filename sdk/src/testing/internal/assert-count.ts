// Option validation for the handler factories. Private to the testing kit.

/** Throws a TypeError naming `name` unless `value` is a non-negative integer (or Infinity). */
export function assertCount(name: string, value: unknown, allowInfinity = false): number {
  if (
    typeof value !== 'number' ||
    !(Number.isInteger(value) || (allowInfinity && value === Number.POSITIVE_INFINITY)) ||
    value < 0
  ) {
    throw new TypeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}
