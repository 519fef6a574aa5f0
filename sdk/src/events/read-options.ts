import { LicensingError } from '../errors.js';
import { type EventTimestamp, parseTimestamp } from './timestamp.js';

/** Largest `maxEventCount` the event service honours (DECISIONS.md). */
export const MAX_PAGE_SIZE = 10_000;

/** Throws LicensingError INVALID_ARGUMENT unless `value` is an integer in [min, max]. */
export function checkInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} must be an integer from ${min} to ${max}`,
    );
  }
  return value;
}

/** Reads an optional timestamp option (`bigint` or decimal digits). */
export function optionalTimestamp(value: unknown, name: string): EventTimestamp | undefined {
  return value === undefined ? undefined : parseTimestamp(value, name);
}

/** Throws LicensingError INVALID_ARGUMENT unless `signal` is undefined or an AbortSignal. */
export function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined || value instanceof AbortSignal) return value;
  throw new LicensingError('INVALID_ARGUMENT', 'signal must be an AbortSignal');
}
