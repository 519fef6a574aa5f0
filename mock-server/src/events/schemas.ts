import {
  challengeHeader,
  errorResponse,
  invalidRequestResponse,
  SECURITY,
} from '../openapi/responses.js';

// Timestamps and counts are declared as digit strings: Ajv would coerce integers through
// Number and lose nanosecond precision. parseFeedQuery turns them into BigInt / numbers.
const digits = (description: string) =>
  ({ type: 'string', pattern: '^[0-9]+$', description }) as const;

const feedQuerySchema = {
  type: 'object',
  properties: {
    after: digits('Only events received after this timestamp (ns since the epoch, int64)'),
    before: digits('Only events received before this timestamp (ns since the epoch, int64)'),
    maxEventCount: digits('Maximum events returned (default 1000, capped at 10000)'),
    newest: {
      type: 'string',
      enum: ['true', 'false'],
      description:
        'Newest (true) or oldest (false) events of a larger range. Default true; false when `after` is given',
    },
    minWaitMs: digits(
      'Long poll with `after`: minimum wait in ms once an event is there (default 0)',
    ),
    maxWaitMs: digits(
      'Long poll with `after`: maximum wait in ms for a first event (default 0, cap 60000)',
    ),
  },
} as const;

/** `data` of the standby's lease events (DECISIONS "Outage usage"). */
const standbyLeaseData = {
  title: 'StandbyLeaseGranted, StandbyLeaseRenewed, StandbyLeaseReleased',
  description:
    "`data` of the standby's events (`eventSourceId` `standby`, `eventObjectType` `consumer`, " +
    '`eventObjectId` the caller: the ID token `sub`, or `service-key-<16 hex>`), one per lease ' +
    'granted, renewed or released. For a release, `licenseId`, `licensedItemName`, `iat` and ' +
    '`exp` are those of the released lease, present when the standby knows it.',
  type: 'object',
  required: ['leaseId', 'authorization', 'idTokenGraceSeconds'],
  properties: {
    leaseId: { type: 'string' },
    licenseId: { type: 'string' },
    licensedItemName: { type: 'string' },
    iat: { type: 'integer', description: "The lease's iat, seconds since the epoch" },
    exp: { type: 'integer', description: "The lease's exp, seconds since the epoch" },
    hw: { type: 'string', description: 'As the request carried it' },
    hwName: { type: 'string' },
    process: { type: 'string' },
    version: { type: 'string' },
    email: { type: 'string', description: "The ID token's email, when it has one" },
    authorization: { type: 'string', enum: ['IdToken', 'ServiceKeyHash'] },
    idTokenGraceSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 86_400,
      description: "How far past the ID token's exp the request came (0 inside it)",
    },
  },
} as const;

/** `data` of the mock main's license events. */
const licenseData = {
  title: 'LicenseProvisioned, LicenseRevoked',
  description:
    "`data` of the mock main's license events (`eventSourceId` `main`, `eventObjectType` `license`)",
  type: 'object',
  required: ['licensedItemName', 'licenseId', 'userId'],
  properties: {
    licensedItemName: { type: 'string' },
    licenseId: { type: 'string' },
    userId: { type: 'string' },
    activationCode: { type: 'string', description: 'LicenseProvisioned only' },
  },
} as const;

/** `data` of the mock main's activation-code events. */
const activationCodeData = {
  title: 'ActivationCodeBlocked, ActivationCodeUnblocked',
  description:
    "`data` of the mock main's activation-code events (`eventSourceId` `main`, `eventObjectType` `activationCode`)",
  type: 'object',
  required: ['activationCode'],
  properties: { activationCode: { type: 'string' } },
} as const;

const feedSchema = {
  description:
    'Feed: `objects` = [older instruction, events ascending by eventReceived, newer instruction]. ' +
    '`eventReceived` is written as exact int64 digits; compare with `eventReceived_str` or BigInt.',
  type: 'object',
  required: ['uri', 'updateUrl', 'count', 'objects'],
  properties: {
    uri: { type: 'string', description: 'Relative feed uri (below {event_url}/get/)' },
    updateUrl: { type: 'string', description: 'Equals the newer instruction url' },
    count: { type: 'integer', format: 'int32', description: 'Events in objects' },
    objects: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          eventType: { type: 'string' },
          eventSourceId: { type: 'string' },
          eventId: { type: 'string', format: 'uuid' },
          eventReceived: { type: 'integer', format: 'int64' },
          eventReceived_str: { type: 'string' },
          eventObjectId: { type: 'string' },
          eventObjectType: { type: 'string' },
          data: {
            description:
              'The event data: any JSON a writer sent. The kinds the mock writes itself are ' +
              "described here (the standby's lease events, the mock main's license and " +
              'activation-code events; docs/protocol.md "Events")',
            anyOf: [
              standbyLeaseData,
              licenseData,
              activationCodeData,
              { description: "Any other writer's data" },
            ],
          },
          instruction: { type: 'string', enum: ['older', 'newer'] },
          url: { type: 'string' },
          count: { type: 'integer', format: 'int32' },
        },
      },
    },
  },
} as const;

const readErrors = {
  400: invalidRequestResponse,
  401: errorResponse(
    '`unauthorized` (no `Authorization`) or `invalid_token` (not a valid read JWT), with a `Bearer` challenge',
    challengeHeader,
  ),
  403: errorResponse('`forbidden`: the read JWT has no claim for this feed'),
} as const;

/** One event as a writer sends it (the service adds `eventId` if absent and `eventReceived`). */
const writtenEventSchema = {
  type: 'object',
  required: ['eventType', 'eventSourceId'],
  additionalProperties: true,
  properties: {
    eventType: { type: 'string' },
    eventSourceId: { type: 'string', description: 'No slash; at most --max-id-length characters' },
    eventId: { type: 'string', description: 'Default: a new UUID' },
    eventObjectType: { type: 'string', description: 'With eventObjectId; no slash' },
    eventObjectId: { type: 'string', description: 'With eventObjectType; no slash' },
    // Set by the service: a writer that sends either is refused (400).
    eventReceived: { not: {}, description: 'Never sent: the service sets it' },
    eventReceived_str: { not: {}, description: 'Never sent: the service sets it' },
  },
} as const;

/** The body of `POST /events/put`, for OpenAPI only (the route parses the text itself). */
const putBody = {
  required: true,
  content: {
    'application/jose': {
      schema: {
        type: 'string',
        pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
        description:
          'A compact JWS (RS256, RS384 or RS512) by a trusted writer key whose payload is one event or an array of events',
      },
    },
    'application/json': {
      schema: {
        description:
          'One event or an array of events, unsigned (refused with 415 when the server requires signed events)',
        oneOf: [{ ...writtenEventSchema }, { type: 'array', items: { ...writtenEventSchema } }],
      },
    },
  },
} as const;

/**
 * `POST /events/put`. The body is parsed by the route itself (JWS or legacy JSON), so its
 * limits are described here rather than enforced by this schema.
 */
export const putSchema = {
  operationId: 'writeEvents',
  summary: 'Write one event or an array of events',
  tags: ['events'],
  // The JWS signature is the writer's credential; legacy JSON writes carry none.
  security: SECURITY.public,
  'x-request-body': putBody,
  description:
    'Body: a compact JWS (`Content-Type: application/jose`, RS256/RS384/RS512) whose payload is ' +
    'one event object or an array of them; or, unless the server requires signed events, the ' +
    'same JSON with `Content-Type: application/json`. All-or-nothing. Limits (defaults, each ' +
    'configurable): body 1 MiB (413); `eventSourceId`, `eventObjectType`, `eventObjectId` at ' +
    'most 512 characters, as on read (400); a field of an event nests at most 64 containers ' +
    '(400).',
  response: {
    201: { description: 'Stored (empty body)', type: 'null' },
    400: invalidRequestResponse,
    401: errorResponse('`invalid_signature`: the JWS does not verify with a trusted writer key'),
    413: errorResponse('`request_too_large`: the body exceeds --max-body-bytes'),
    415: errorResponse(
      '`unsupported_media_type`: neither application/jose nor (unless signed events are required) application/json',
    ),
  },
} as const;

/** A feed path segment: the same length limit as on write (docs/protocol.md "Limits"). */
const feedSegment = (maxIdLength: number, description: string) =>
  ({ type: 'string', minLength: 1, maxLength: maxIdLength, description }) as const;

/** `GET /events/get/:eventSourceId`; ids longer than `maxIdLength` are 400. */
export const sourceFeedSchema = (maxIdLength: number) =>
  ({
    operationId: 'getSourceFeed',
    summary: 'Feed of the events sent by a source',
    tags: ['events'],
    security: SECURITY.eventReader,
    params: {
      type: 'object',
      required: ['eventSourceId'],
      properties: { eventSourceId: feedSegment(maxIdLength, 'No slash') },
    },
    querystring: feedQuerySchema,
    response: { 200: feedSchema, ...readErrors },
  }) as const;

/** `GET /events/get/:eventObjectType/:eventObjectId`; ids longer than `maxIdLength` are 400. */
export const objectFeedSchema = (maxIdLength: number) =>
  ({
    operationId: 'getObjectFeed',
    summary: 'Feed of the events related to an object',
    tags: ['events'],
    security: SECURITY.eventReader,
    params: {
      type: 'object',
      required: ['eventObjectType', 'eventObjectId'],
      properties: {
        eventObjectType: feedSegment(maxIdLength, 'No slash'),
        eventObjectId: feedSegment(maxIdLength, 'No slash'),
      },
    },
    querystring: feedQuerySchema,
    response: { 200: feedSchema, ...readErrors },
  }) as const;
