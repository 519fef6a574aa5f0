// Schemas of the admin routes for faults and scenarios (`/admin/faults`, `/admin/scenarios`).
import { FAULT_MODES, FAULT_SERVICES, FAULT_STATUSES, MAX_FAULT_SEED } from './fault-registry.js';

const apiError = { $ref: 'ApiError#' } as const;

/** A route under a service's base, as a fault names it. */
const routeSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: '^(\\*|/.*)$',
} as const;

const faultSchema = {
  type: 'object',
  required: ['service', 'route', 'mode', 'hits', 'misses'],
  properties: {
    service: { type: 'string', enum: FAULT_SERVICES },
    route: { type: 'string' },
    mode: { type: 'string', enum: FAULT_MODES },
    status: { type: 'integer', enum: FAULT_STATUSES },
    retryAfterSeconds: { type: 'integer' },
    delayMs: { type: 'integer' },
    jitterMs: { type: 'integer' },
    probability: { type: 'number' },
    seed: { type: 'integer', description: 'The seed in use (a random one when none was given)' },
    every: { type: 'integer' },
    remaining: { type: 'integer', description: 'Hits it still applies to' },
    hits: { type: 'integer', description: 'Matching requests it applied to' },
    misses: { type: 'integer', description: 'Matching requests it let through' },
  },
} as const;

/** The body of `POST /admin/faults` (also what a scenario is made of). */
export const faultSpecSchema = {
  type: 'object',
  required: ['mode'],
  additionalProperties: false,
  properties: {
    service: {
      type: 'string',
      enum: FAULT_SERVICES,
      default: 'main',
      description: 'The service it applies to',
    },
    route: {
      ...routeSchema,
      default: '*',
      description:
        'A route of the service, under its base (e.g. /authz/.jwt for /main/authz/.jwt, as the service declares it: /get/:eventSourceId), or * for every request to it; GET /admin/faults lists the routes',
    },
    mode: {
      type: 'string',
      enum: FAULT_MODES,
      description:
        'reset: TCP reset; hang: never answer; error: status (429 ApiError, 5xx HTML page); delay: wait, then answer normally; truncate: the answer with half its body, then the connection closes; captive-portal: 200 with an HTML login page',
    },
    status: {
      type: 'integer',
      enum: FAULT_STATUSES,
      description: 'For error. Default 503',
    },
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
    jitterMs: {
      type: 'integer',
      minimum: 0,
      maximum: 600_000,
      description: 'For delay: plus a delay uniform in [0, jitterMs] ms, drawn from the seed',
    },
    count: {
      type: 'integer',
      minimum: 1,
      maximum: 1_000_000_000,
      description: 'Only the next N hits, then the fault is gone. Default: until cleared',
    },
    probability: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'Chance that a matching request is hit. Default 1',
    },
    seed: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_FAULT_SEED,
      description:
        'Seed of the draws (probability, jitterMs): the same seed gives the same hits, misses and delays over the same requests. Default: random, shown by GET /admin/faults',
    },
    every: {
      type: 'integer',
      minimum: 1,
      maximum: 1_000_000_000,
      description: 'Hit only every n-th matching request (n, 2n, ...). Default 1',
    },
  },
} as const;

export const setFaultSchema = {
  operationId: 'adminSetFault',
  summary: 'Inject a fault into a service (replaces the fault of the same service and route)',
  tags: ['admin'],
  security: [],
  body: faultSpecSchema,
  response: { 201: faultSchema, 400: apiError, 403: apiError, 415: apiError },
} as const;

export const listFaultsSchema = {
  operationId: 'adminListFaults',
  summary: 'Active faults with their hits and misses, the requests they hold, and the routes',
  tags: ['admin'],
  security: [],
  response: {
    200: {
      type: 'object',
      required: ['faults', 'held', 'routes'],
      properties: {
        faults: { type: 'array', items: faultSchema },
        held: {
          type: 'object',
          required: ['hang', 'delay'],
          properties: { hang: { type: 'integer' }, delay: { type: 'integer' } },
        },
        routes: {
          type: 'object',
          description: 'The routes of each service a fault can name, besides *',
          required: [...FAULT_SERVICES],
          properties: Object.fromEntries(
            FAULT_SERVICES.map((service) => [
              service,
              { type: 'array', items: { type: 'string' } },
            ]),
          ),
        },
      },
    },
    403: apiError,
  },
} as const;

export const clearFaultsSchema = {
  operationId: 'adminClearFaults',
  summary: 'Clear the faults of one service (?service=), one route (?route=), or every fault',
  tags: ['admin'],
  security: [],
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      service: { type: 'string', enum: FAULT_SERVICES },
      route: routeSchema,
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['cleared'],
      properties: { cleared: { type: 'integer' } },
    },
    400: apiError,
    403: apiError,
  },
} as const;

const scenarioSchema = {
  type: 'object',
  required: ['name', 'description', 'faults'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    faults: {
      type: 'array',
      items: { type: 'object', additionalProperties: true },
      description: 'The faults it sets, as POST /admin/faults bodies',
    },
  },
} as const;

export const listScenariosSchema = {
  operationId: 'adminListScenarios',
  summary: 'The named outage drills and the faults each one sets',
  tags: ['admin'],
  security: [],
  response: {
    200: {
      type: 'object',
      required: ['scenarios'],
      properties: { scenarios: { type: 'array', items: scenarioSchema } },
    },
    403: apiError,
  },
} as const;

export const applyScenarioSchema = {
  operationId: 'adminApplyScenario',
  summary:
    'Apply a named drill: its faults replace those of the same service and route (DELETE /admin/faults ends it)',
  tags: ['admin'],
  security: [],
  params: {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
  },
  response: {
    200: {
      type: 'object',
      required: ['scenario', 'faults'],
      properties: {
        scenario: { type: 'string' },
        faults: { type: 'array', items: faultSchema, description: 'The faults it set' },
      },
    },
    400: apiError,
    403: apiError,
    404: apiError,
  },
} as const;
