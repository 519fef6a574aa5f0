import { randomUUID } from 'node:crypto';
import { codePointLength } from '../config/limits.js';
import { ApiError } from '../http/api-error.js';
import type { NewEvent } from '../store/event-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function invalid(description: string): ApiError {
  return new ApiError(400, 'invalid_request', description);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkId(
  event: Record<string, unknown>,
  field: string,
  where: string,
  maxLength: number,
): void {
  const value = event[field];
  if (value === undefined) return;
  if (typeof value !== 'string' || value === '') {
    throw invalid(`${where}: ${field} must be a non-empty string`);
  }
  if (value.includes('/')) throw invalid(`${where}: ${field} must not contain a forward slash`);
  // The same limit as the read routes' path parameters, so whatever is written can be read.
  if (codePointLength(value) > maxLength) {
    throw invalid(`${where}: ${field} is longer than ${maxLength} characters`);
  }
}

/** Options of {@link validateEvents}. */
export interface ValidateEventsOptions {
  /** Longest `eventSourceId`, `eventObjectType` and `eventObjectId`, in code points. */
  maxIdLength: number;
}

/**
 * Validates a written body (one event object or a non-empty array of them) by the rules of
 * docs/protocol.md ("Events") and returns the events to store, each with an `eventId` (a new
 * UUID when absent).
 * Throws a 400 `invalid_request` ApiError naming the first problem; nothing is stored then.
 * (JSON nesting is limited before the body is parsed: see `measureJsonDepth`.)
 *
 * @example
 * const events = validateEvents(JSON.parse(text), { maxIdLength: 512 });
 */
export function validateEvents(body: unknown, options: ValidateEventsOptions): NewEvent[] {
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0) throw invalid('The body is an empty array; send at least one event');
  return list.map((event, i) => {
    const where = Array.isArray(body) ? `event ${i}` : 'event';
    if (!isPlainObject(event)) throw invalid(`${where}: not a JSON object`);
    if ('eventReceived' in event || 'eventReceived_str' in event) {
      throw invalid(`${where}: eventReceived is set by the service and must not be written`);
    }
    if (typeof event.eventType !== 'string' || event.eventType === '') {
      throw invalid(`${where}: eventType is required (a non-empty string)`);
    }
    if (event.eventType === 'instruction') {
      throw invalid(`${where}: eventType "instruction" is reserved for feed instructions`);
    }
    if (event.eventSourceId === undefined) throw invalid(`${where}: eventSourceId is required`);
    checkId(event, 'eventSourceId', where, options.maxIdLength);
    checkId(event, 'eventObjectType', where, options.maxIdLength);
    checkId(event, 'eventObjectId', where, options.maxIdLength);
    if ((event.eventObjectType === undefined) !== (event.eventObjectId === undefined)) {
      throw invalid(`${where}: eventObjectType and eventObjectId must be given together`);
    }
    if (event.eventId === undefined)
      return { ...event, eventId: randomUUID() } as unknown as NewEvent;
    if (typeof event.eventId !== 'string' || !UUID.test(event.eventId)) {
      throw invalid(`${where}: eventId must be a UUID`);
    }
    return event as unknown as NewEvent;
  });
}
