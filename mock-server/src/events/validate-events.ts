import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { NewEvent } from '../store/event-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function invalid(description: string): ApiError {
  return new ApiError(400, 'invalid_request', description);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkId(event: Record<string, unknown>, field: string, where: string): void {
  const value = event[field];
  if (value === undefined) return;
  if (typeof value !== 'string' || value === '') {
    throw invalid(`${where}: ${field} must be a non-empty string`);
  }
  if (value.includes('/')) throw invalid(`${where}: ${field} must not contain a forward slash`);
}

/**
 * Validates a written body (one event object or a non-empty array of them) by the rules of
 * DECISIONS.md and returns the events to store, each with an `eventId` (a new UUID when absent).
 * Throws a 400 `invalid_request` ApiError naming the first problem; nothing is stored then.
 */
export function validateEvents(body: unknown): NewEvent[] {
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
    checkId(event, 'eventSourceId', where);
    checkId(event, 'eventObjectType', where);
    checkId(event, 'eventObjectId', where);
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
