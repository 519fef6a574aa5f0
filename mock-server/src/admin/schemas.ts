import {
  errorResponse,
  invalidRequestResponse,
  retryAfterHeader,
  SECURITY,
} from '../openapi/responses.js';

export const resetSchema = {
  operationId: 'adminReset',
  summary: 'Run every reset hook, or only the one named by ?service=',
  tags: ['admin'],
  security: SECURITY.public,
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
    400: invalidRequestResponse,
  },
} as const;

const clockSchema = {
  type: 'object',
  required: ['now', 'nowMs', 'offsetMs', 'idTokenGraceSeconds'],
  properties: {
    now: { type: 'string', format: 'date-time' },
    nowMs: { type: 'integer' },
    offsetMs: { type: 'integer' },
    idTokenGraceSeconds: {
      type: 'object',
      description: 'How long after `exp` each service still accepts an ID token',
      required: ['main', 'standby'],
      properties: { main: { type: 'integer' }, standby: { type: 'integer' } },
    },
  },
} as const;

export const getClockSchema = {
  operationId: 'adminGetClock',
  summary: 'The server clock and its offset',
  tags: ['admin'],
  security: SECURITY.public,
  response: { 200: clockSchema },
} as const;

/**
 * `PUT /admin/clock`: `offsetMs` an integer within ±`maxOffsetMs` (the `maxClockOffsetMs` limit),
 * or `advanceMs` an integer that keeps the offset within it. Validated strictly: `"5"`, `null`,
 * `true` and fractions are refused, never coerced.
 */
export const setClockSchema = (maxOffsetMs: number) =>
  ({
    operationId: 'adminSetClock',
    summary: 'Set the clock offset (offsetMs) or move it by advanceMs',
    tags: ['admin'],
    security: SECURITY.public,
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
    response: { 200: clockSchema, 400: invalidRequestResponse },
  }) as const;

// --- main provisioning (docs/mock-server.md "Main provisioning and its events") ---

/** 503 of a main change while its outbox is full (`--max-licenses` changes wait). */
const outboxFullResponse = errorResponse(
  '`outbox_full`: too many changes wait for the event service; try again later',
  retryAfterHeader,
);

/** An activation code: what a path segment and an event object id can carry. */
export const ACTIVATION_CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._~-]{0,63}$';

const activationCodeSchema = {
  type: 'string',
  pattern: ACTIVATION_CODE_PATTERN,
  description: 'Letters, digits and . _ ~ - (at most 64), starting with a letter or digit',
} as const;

const licenseSchema = {
  type: 'object',
  required: ['licenseId', 'sub', 'item', 'activationCode', 'provisionedAt'],
  properties: {
    licenseId: { type: 'string', description: 'The `lic` claim of the leases it grants' },
    sub: { type: 'string' },
    item: { type: 'string' },
    activationCode: { type: 'string' },
    provisionedAt: { type: 'string', format: 'date-time' },
  },
} as const;

/**
 * `POST /admin/main/licenses`: `item` is a name `/authz/.jwt` can request (not a reserved
 * parameter nor a token claim, like checkout product names).
 */
export const provisionSchema = (itemNameRules: { not: { enum: readonly string[] } }) =>
  ({
    operationId: 'adminProvisionLicense',
    summary: 'Provision a license of one item for one user (sub); events LicenseProvisioned',
    tags: ['admin'],
    security: SECURITY.public,
    body: {
      type: 'object',
      required: ['sub', 'item'],
      additionalProperties: false,
      properties: {
        sub: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
          description: 'The user: the `sub` of their ID tokens',
        },
        item: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          ...itemNameRules,
          description: 'The licensed item; not a reserved parameter or token claim name',
        },
        activationCode: { ...activationCodeSchema, description: 'Default: a new code' },
      },
    },
    response: {
      201: licenseSchema,
      400: invalidRequestResponse,
      409: errorResponse('`activation_code_blocked`: the activation code is blocked'),

      503: outboxFullResponse,
    },
  }) as const;

export const listLicensesSchema = {
  operationId: 'adminListLicenses',
  summary: 'Licenses provisioned (of one user with ?sub=), oldest first',
  tags: ['admin'],
  security: SECURITY.public,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { sub: { type: 'string', minLength: 1, maxLength: 256 } },
  },
  response: {
    200: {
      type: 'array',
      items: {
        ...licenseSchema,
        required: [...licenseSchema.required, 'live'],
        properties: {
          ...licenseSchema.properties,
          live: { type: 'boolean', description: 'False while its activation code is blocked' },
        },
      },
    },
    400: invalidRequestResponse,
  },
} as const;

export const revokeSchema = {
  operationId: 'adminRevokeLicense',
  summary: 'Revoke a license (it is removed); events LicenseRevoked',
  tags: ['admin'],
  security: SECURITY.public,
  params: {
    type: 'object',
    required: ['licenseId'],
    properties: { licenseId: { type: 'string', minLength: 1, maxLength: 128 } },
  },
  response: {
    204: { description: 'Revoked', type: 'null' },
    400: invalidRequestResponse,
    404: errorResponse('`not_found`: no such license'),
    503: outboxFullResponse,
  },
} as const;

const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: activationCodeSchema },
} as const;

export const blockCodeSchema = {
  operationId: 'adminBlockActivationCode',
  summary:
    'Block an activation code: its licenses stop being live and it provisions nothing; event ActivationCodeBlocked',
  tags: ['admin'],
  security: SECURITY.public,
  params: codeParams,
  response: {
    204: { description: 'Blocked (already blocked: no change, no event)', type: 'null' },
    400: invalidRequestResponse,
    503: outboxFullResponse,
  },
} as const;

export const unblockCodeSchema = {
  operationId: 'adminUnblockActivationCode',
  summary: 'Unblock an activation code; event ActivationCodeUnblocked',
  tags: ['admin'],
  security: SECURITY.public,
  params: codeParams,
  response: {
    204: { description: 'Unblocked (not blocked: no change, no event)', type: 'null' },
    400: invalidRequestResponse,
    503: outboxFullResponse,
  },
} as const;

export const listBlockedCodesSchema = {
  operationId: 'adminListBlockedActivationCodes',
  summary: 'Activation codes blocked now, oldest block first',
  tags: ['admin'],
  security: SECURITY.public,
  response: {
    200: {
      type: 'array',
      items: {
        type: 'object',
        required: ['activationCode', 'blockedAt'],
        properties: {
          activationCode: { type: 'string' },
          blockedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
} as const;

const outboxSchema = {
  type: 'object',
  required: ['paused', 'pending', 'entries'],
  properties: {
    paused: { type: 'boolean', description: 'Deliveries held (PUT { paused: true })' },
    pending: { type: 'integer', description: 'Changes whose events wait' },
    entries: {
      type: 'array',
      description: 'The oldest 100 waiting changes',
      items: {
        type: 'object',
        required: ['change', 'events'],
        properties: {
          change: { type: 'integer' },
          events: {
            type: 'array',
            items: {
              type: 'object',
              required: ['eventId', 'eventType', 'eventObjectType', 'eventObjectId'],
              properties: {
                eventId: { type: 'string' },
                eventType: { type: 'string' },
                eventObjectType: { type: 'string' },
                eventObjectId: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
} as const;

export const getOutboxSchema = {
  operationId: 'adminGetOutbox',
  summary: "Main's outbox: events of stored changes not yet written to the event service",
  tags: ['admin'],
  security: SECURITY.public,
  response: { 200: outboxSchema },
} as const;

export const setOutboxSchema = {
  operationId: 'adminSetOutbox',
  summary: "Hold main's event deliveries (an event-service outage for main) or let them go",
  tags: ['admin'],
  security: SECURITY.public,
  body: {
    type: 'object',
    required: ['paused'],
    additionalProperties: false,
    properties: { paused: { type: 'boolean' } },
  },
  response: { 200: outboxSchema, 400: invalidRequestResponse },
} as const;

// --- the standby's outbox and what it granted ---

const standbyOutboxSchema = {
  ...outboxSchema,
  required: [...outboxSchema.required, 'pendingEvents'],
  properties: {
    ...outboxSchema.properties,
    pending: { type: 'integer', description: 'Answers whose events wait' },
    pendingEvents: { type: 'integer', description: 'Events waiting, in all answers' },
    entries: {
      ...outboxSchema.properties.entries,
      description: 'The oldest 100 waiting answers',
    },
  },
} as const;

export const getStandbyOutboxSchema = {
  operationId: 'adminGetStandbyOutbox',
  summary: "The standby's outbox: events of lease answers not yet written to the event service",
  tags: ['admin'],
  security: SECURITY.public,
  response: { 200: standbyOutboxSchema },
} as const;

export const setStandbyOutboxSchema = {
  operationId: 'adminSetStandbyOutbox',
  summary:
    "Hold the standby's event deliveries (an event-service outage for the standby) or let them go",
  tags: ['admin'],
  security: SECURITY.public,
  body: {
    type: 'object',
    required: ['paused'],
    additionalProperties: false,
    properties: { paused: { type: 'boolean' } },
  },
  response: { 200: standbyOutboxSchema, 400: invalidRequestResponse },
} as const;

const usageRowSchema = {
  type: 'object',
  required: [
    'consumer',
    'item',
    'granted',
    'renewed',
    'released',
    'firstGrant',
    'lastExp',
    'leaseHours',
    'devices',
    'graceGrants',
  ],
  properties: {
    consumer: { type: 'string', description: '`sub`, or `service-key-<16 hex>`' },
    item: { type: 'string', description: "'' for a release of a lease no event names the item of" },
    granted: { type: 'integer' },
    renewed: { type: 'integer' },
    released: { type: 'integer' },
    firstGrant: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'iat of the first grant',
    },
    lastExp: { type: ['string', 'null'], format: 'date-time' },
    leaseHours: { type: 'number' },
    devices: { type: 'integer', description: 'Distinct hw' },
    graceGrants: { type: 'integer', description: 'Grants made in the ID-token grace' },
  },
} as const;

export const standbyUsageSchema = {
  operationId: 'adminGetStandbyUsage',
  summary:
    'What the standby granted: its lease events summarised per consumer and item (as `standby-licensing usage` prints them)',
  tags: ['admin'],
  security: SECURITY.public,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      from: {
        type: 'string',
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}',
        maxLength: 64,
        description: 'ISO 8601 date-time: only events received at or after this',
      },
      to: {
        type: 'string',
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}',
        maxLength: 64,
        description: 'ISO 8601 date-time: only events received before this',
      },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['events', 'waiting', 'rows'],
      properties: {
        events: { type: 'integer', description: 'Standby lease events in the window' },
        waiting: {
          type: 'integer',
          description: 'Events still in the outbox (not yet in the event service, not counted)',
        },
        rows: { type: 'array', items: usageRowSchema },
      },
    },
    400: invalidRequestResponse,
  },
} as const;

// --- standby view and propagation delay ---

const standbyViewSchema = {
  type: 'object',
  required: ['state', 'propagationDelayMs', 'signingKeys', 'apiKeyHeader'],
  properties: {
    apiKeyHeader: {
      type: 'string',
      description: 'The header its management API reads the key from (--wire-names)',
    },
    state: { type: 'string', enum: ['dormant', 'active'], description: 'In effect now' },
    pending: {
      type: 'object',
      required: ['state', 'effectiveAt'],
      properties: {
        state: { type: 'string', enum: ['dormant', 'active'] },
        effectiveAt: { type: 'string', format: 'date-time', description: 'Server clock' },
      },
    },
    propagationDelayMs: { type: 'integer' },
    signingKeys: {
      type: 'array',
      description: 'Newest (the default) first',
      items: {
        type: 'object',
        required: ['keyId', 'createdAt'],
        properties: { keyId: { type: 'string' }, createdAt: { type: 'string' } },
      },
    },
  },
} as const;

export const getStandbySchema = {
  operationId: 'adminGetStandby',
  summary:
    'The standby as QA sees it: state, a pending change, propagation delay, signing keys (changes go through its management API)',
  tags: ['admin'],
  security: SECURITY.public,
  response: { 200: standbyViewSchema },
} as const;

export const setPropagationDelaySchema = {
  operationId: 'adminSetPropagationDelay',
  summary: 'Set the standby propagation delay (not stored; reset restores --propagation-delay-ms)',
  tags: ['admin'],
  security: SECURITY.public,
  body: {
    type: 'object',
    required: ['propagationDelayMs'],
    additionalProperties: false,
    properties: { propagationDelayMs: { type: 'integer', minimum: 0, maximum: 300_000 } },
  },
  response: { 200: standbyViewSchema, 400: invalidRequestResponse },
} as const;

// --- metrics ---

export const metricsSchema = {
  operationId: 'adminGetMetrics',
  summary:
    'Metrics in the Prometheus text format (prom-client): requests by service, route and status; request duration by service; leases granted and released; faults hit; parked long polls; events written; outbox backlog; signing queue depth',
  tags: ['admin'],
  security: SECURITY.public,
  produces: ['text/plain'],
  response: {
    200: {
      description: 'The Prometheus text exposition format, version 0.0.4',
      content: { 'text/plain': { schema: { type: 'string' } } },
    },
  },
} as const;

// --- the QA console and its live request log ---

const requestEntrySchema = {
  type: 'object',
  required: ['seq', 'at', 'service', 'method', 'route', 'path', 'status', 'ms'],
  properties: {
    seq: { type: 'integer' },
    at: { type: 'integer', description: 'ms since the epoch, real time' },
    service: { type: 'string' },
    method: { type: 'string' },
    route: { type: 'string' },
    path: { type: 'string', description: 'As requested, under the service base, no query' },
    status: { type: ['integer', 'null'] },
    outcome: { type: 'string', enum: ['reset', 'hang', 'aborted', 'truncated'] },
    ms: { type: 'number', description: 'Latency in ms' },
    caller: { type: 'string' },
    hw: { type: 'string' },
    servedBy: { type: 'string', enum: ['main', 'standby'] },
    kind: {
      type: 'string',
      enum: ['consume', 'renew', 'consume+renew', 'release'],
      description: 'What a licensing request was, once its route parsed it',
    },
    items: { type: 'integer', description: 'Items requested, or lease ids released' },
    granted: { type: 'integer', description: 'Of items, those answered with a lease' },
    traceparent: { type: 'string', description: 'The W3C Trace Context header, when valid' },
  },
} as const;

/** The services a request log entry names. */
export const REQUEST_LOG_SERVICES = ['main', 'standby', 'events', 'idp', 'admin', 'other'] as const;

export const listRequestsSchema = {
  operationId: 'adminListRequests',
  summary:
    'The request journal: kept entries after ?after=<seq>, filtered by service, method, path prefix, status and licensing kind, with their count',
  tags: ['admin'],
  security: SECURITY.public,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      after: { type: 'integer', minimum: 0, description: 'Entries after this seq. Default 0' },
      service: { type: 'string', enum: REQUEST_LOG_SERVICES },
      method: {
        type: 'string',
        enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      },
      path: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        pattern: '^/',
        description: 'A prefix of the path under the service base, e.g. /authz/.jwt or /get/main',
      },
      status: { type: 'integer', minimum: 100, maximum: 599 },
      kind: { type: 'string', enum: ['consume', 'renew', 'consume+renew', 'release'] },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['count', 'entries', 'dropped', 'lastSeq', 'readers'],
      properties: {
        count: { type: 'integer', description: 'Entries that match (all of them are listed)' },
        entries: { type: 'array', items: requestEntrySchema },
        dropped: { type: 'integer', description: 'Entries after `after` no longer kept' },
        lastSeq: { type: 'integer' },
        readers: { type: 'integer', description: 'Event streams open now (consoles watching)' },
      },
    },
    400: { $ref: 'ApiError#' },
    403: { $ref: 'ApiError#' },
  },
} as const;

export const requestStreamSchema = {
  operationId: 'adminStreamRequests',
  summary: 'The live request log as server-sent events (request, dropped)',
  description:
    '`text/event-stream`: `event: request` with `id: <seq>` and the entry as `data`, and ' +
    '`event: dropped` with `{ count }` when entries were overwritten before this reader got them. ' +
    'Honours `Last-Event-ID`; without it starts with the last 200 entries.',
  tags: ['admin'],
  security: SECURITY.public,
  produces: ['text/event-stream'],
  response: {
    200: {
      description: 'An endless event stream',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
  },
} as const;

/** Operation ids of the console's files, by path. */
const CONSOLE_OPERATIONS: Record<string, string> = {
  '/console': 'adminGetConsole',
  '/console.js': 'adminGetConsoleScript',
  '/console.css': 'adminGetConsoleStyles',
};

/** A file of the QA console at `path`, served as `type` (its media type, parameters dropped). */
export const consoleAssetSchema = (what: string, path: string, type: string) =>
  ({
    operationId: CONSOLE_OPERATIONS[path] ?? `adminGetConsoleFile`,
    summary: `The QA console: ${what}`,
    tags: ['admin'],
    security: SECURITY.public,
    response: {
      200: {
        description: what,
        content: { [type.split(';')[0]!.trim()]: { schema: { type: 'string' } } },
      },
    },
  }) as const;
