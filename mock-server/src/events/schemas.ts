import { apiErrorSchema } from '../errors.js';

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
          instruction: { type: 'string', enum: ['older', 'newer'] },
          url: { type: 'string' },
          count: { type: 'integer', format: 'int32' },
        },
      },
    },
  },
} as const;

const readErrors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema };

/**
 * `POST /events/put`. The body is parsed by the route itself (JWS or legacy JSON), so its
 * limits are described here rather than enforced by this schema.
 */
export const putSchema = {
  summary: 'Write one event or an array of events',
  description:
    'Body: a compact JWS (`Content-Type: application/jose`, RS256/RS384/RS512) whose payload is ' +
    'one event object or an array of them; or, unless the server requires signed events, the ' +
    'same JSON with `Content-Type: application/json`. All-or-nothing. Limits (defaults, each ' +
    'configurable): body 1 MiB (413); `eventSourceId`, `eventObjectType`, `eventObjectId` at ' +
    'most 512 characters, as on read (400); a field of an event nests at most 64 containers ' +
    '(400).',
  response: {
    201: { description: 'Stored', type: 'null' },
    400: apiErrorSchema,
    401: apiErrorSchema,
    413: apiErrorSchema,
    415: apiErrorSchema,
  },
} as const;

/** A feed path segment: the same length limit as on write (DECISIONS.md "Limits"). */
const feedSegment = (maxIdLength: number, description: string) =>
  ({ type: 'string', minLength: 1, maxLength: maxIdLength, description }) as const;

/** `GET /events/get/:eventSourceId`; ids longer than `maxIdLength` are 400. */
export const sourceFeedSchema = (maxIdLength: number) =>
  ({
    summary: 'Feed of the events sent by a source',
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
    summary: 'Feed of the events related to an object',
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
