import { apiErrorSchema } from '../errors.js';
import { FAULT_ROUTES } from './fault-registry.js';

const faultSchema = {
  type: 'object',
  required: ['route', 'mode', 'hits'],
  properties: {
    route: { type: 'string', enum: FAULT_ROUTES },
    mode: { type: 'string', enum: ['reset', 'hang', 'error', 'delay'] },
    status: { type: 'integer', enum: [500, 503] },
    retryAfterSeconds: { type: 'integer' },
    delayMs: { type: 'integer' },
    remaining: { type: 'integer', description: 'Requests it still applies to' },
    hits: { type: 'integer', description: 'Requests it has applied to' },
  },
} as const;

export const setFaultSchema = {
  summary: 'Inject a fault into main-service routes (replaces the route’s earlier fault)',
  tags: ['admin'],
  body: {
    type: 'object',
    required: ['mode'],
    additionalProperties: false,
    properties: {
      route: {
        type: 'string',
        enum: FAULT_ROUTES,
        default: '*',
        description: 'Main route (path under /main), or * for every main route',
      },
      mode: {
        type: 'string',
        enum: ['reset', 'hang', 'error', 'delay'],
        description:
          'reset: TCP reset; hang: never answer; error: HTTP 500/503 with an HTML body; delay: wait, then answer normally',
      },
      status: { type: 'integer', enum: [500, 503], description: 'For error. Default 503' },
      retryAfterSeconds: {
        type: 'integer',
        minimum: 0,
        maximum: 86_400,
        description: 'For error: send Retry-After with this many seconds. Default: no header',
      },
      delayMs: {
        type: 'integer',
        minimum: 0,
        maximum: 600_000,
        description: 'For delay, in ms. Default 1000',
      },
      count: {
        type: 'integer',
        minimum: 1,
        maximum: 1_000_000_000,
        description: 'Only the next N requests. Default: until cleared',
      },
    },
  },
  response: { 201: faultSchema, 400: apiErrorSchema, 415: apiErrorSchema },
} as const;

export const listFaultsSchema = {
  summary: 'Active faults and the requests they hold',
  tags: ['admin'],
  response: {
    200: {
      type: 'object',
      required: ['faults', 'held'],
      properties: {
        faults: { type: 'array', items: faultSchema },
        held: {
          type: 'object',
          properties: { hang: { type: 'integer' }, delay: { type: 'integer' } },
        },
      },
    },
  },
} as const;

export const clearFaultsSchema = {
  summary: 'Clear the fault of one route (?route=) or every fault',
  tags: ['admin'],
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { route: { type: 'string', enum: FAULT_ROUTES } },
  },
  response: {
    200: {
      type: 'object',
      required: ['cleared'],
      properties: { cleared: { type: 'integer' } },
    },
    400: apiErrorSchema,
  },
} as const;

export const resetSchema = {
  summary: 'Run every reset hook, or only the one named by ?service=',
  tags: ['admin'],
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { service: { type: 'string', minLength: 1 } },
  },
  response: {
    200: {
      type: 'object',
      required: ['reset'],
      properties: { reset: { type: 'array', items: { type: 'string' } } },
    },
    400: apiErrorSchema,
  },
} as const;

const clockSchema = {
  type: 'object',
  required: ['now', 'nowMs', 'offsetMs'],
  properties: {
    now: { type: 'string', format: 'date-time' },
    nowMs: { type: 'integer' },
    offsetMs: { type: 'integer' },
  },
} as const;

export const getClockSchema = {
  summary: 'The server clock and its offset',
  tags: ['admin'],
  response: { 200: clockSchema },
} as const;

/**
 * `PUT /admin/clock`: `offsetMs` an integer within ±`maxOffsetMs` (the `maxClockOffsetMs` limit),
 * or `advanceMs` an integer that keeps the offset within it. Validated strictly: `"5"`, `null`,
 * `true` and fractions are refused, never coerced.
 */
export const setClockSchema = (maxOffsetMs: number) =>
  ({
    summary: 'Set the clock offset (offsetMs) or move it by advanceMs',
    tags: ['admin'],
    body: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      properties: {
        offsetMs: {
          type: 'integer',
          minimum: -maxOffsetMs,
          maximum: maxOffsetMs,
          description: 'New offset from the base clock, in ms',
        },
        advanceMs: {
          type: 'integer',
          minimum: -2 * maxOffsetMs,
          maximum: 2 * maxOffsetMs,
          description: 'Added to the current offset, in ms; the result must stay within the limit',
        },
      },
    },
    response: { 200: clockSchema, 400: apiErrorSchema, 415: apiErrorSchema },
  }) as const;
