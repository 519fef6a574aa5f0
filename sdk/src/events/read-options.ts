import { argument } from '../internal/validate-option.js';
import { type EventTimestamp, parseTimestamp } from './timestamp.js';

export { MAX_PAGE_SIZE } from '../options/event-client.js';

/** Throws LicensingError INVALID_ARGUMENT unless `value` is an integer in [min, max]. */
export function checkInteger(value: unknown, name: string, min: number, max: number): number {
  return argument.number(name, value, Number.NaN, { min, max, integer: true });
}

/** Reads an optional timestamp option (`bigint` or decimal digits). */
export function optionalTimestamp(value: unknown, name: string): EventTimestamp | undefined {
  return value === undefined ? undefined : parseTimestamp(value, name);
}

/** Throws LicensingError INVALID_ARGUMENT unless `signal` is undefined or an AbortSignal. */
export function checkSignal(value: unknown): AbortSignal | undefined {
  return argument.signal('signal', value);
}
