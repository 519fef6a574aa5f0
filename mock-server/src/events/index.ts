import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TrustedKey } from '../crypto/public-keys.js';
import { ApiError } from '../http/api-error.js';
import { type EventStore, objectFeedName } from '../store/event-store.js';
import { measureJsonDepth } from '../validation/json-depth.js';
import { authorizeRead } from './authorize-read.js';
import { buildFeedPage, countInRange, feedPath } from './build-feed.js';
import { type FeedQuery, parseFeedQuery } from './feed-query.js';
import type { FeedWaiters } from './feed-waiters.js';
import { createLongPollResponder } from './long-poll-responder.js';
import { objectFeedSchema, putSchema, sourceFeedSchema } from './schemas.js';
import { validateEvents } from './validate-events.js';
import { verifyEventJws } from './verify-event-jws.js';

/** Internals of a running events service, for tests and diagnostics. */
export interface EventsInternals {
  readonly store: EventStore;
  readonly waiters: FeedWaiters<FeedPoll>;
}

/** A feed read parked as a long poll. */
interface FeedPoll {
  reply: FastifyReply;
  feed: string;
  query: FeedQuery;
}

// Keyed by the HTTP server, which the root instance and its encapsulated children share.
const internals = new WeakMap<object, EventsInternals>();

/**
 * The store and long-poll waiters of the events service of `app` (any instance of the server).
 *
 * @example
 * expect(getEventsInternals(app)?.waiters.size).toBe(0);
 */
export function getEventsInternals(app: FastifyInstance): EventsInternals | undefined {
  return internals.get(app.server);
}

function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Parses written JSON after checking its depth without recursion: a field of an event may nest
 * `maxDepth` containers, not counting the event object nor a batch array around it.
 */
function parseEventJson(text: string, what: string, maxDepth: number): unknown {
  const allowed = maxDepth + (text.trimStart().startsWith('[') ? 2 : 1);
  if (measureJsonDepth(text, allowed) > allowed) {
    throw new ApiError(
      400,
      'invalid_request',
      `${what} nests deeper than ${maxDepth} levels inside an event field`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_request', `${what} is not valid JSON`);
  }
}

function checkFeedSegment(value: string, name: string): void {
  if (value.includes('/')) {
    throw new ApiError(400, 'invalid_request', `${name} must not contain a forward slash`);
  }
}

/**
 * The event data service, mounted at `/events`: `POST /put` (JWS or legacy JSON events),
 * `GET /get/:eventSourceId` and `GET /get/:eventObjectType/:eventObjectId` (feeds with paging
 * and long polling). Events live in memory, and with `dataDir` also in `<dataDir>/events.log`.
 */
export async function eventsService(app: FastifyInstance): Promise<void> {
  const { limits } = app.config;
  const store = app.eventStore;
  const sendPage = ({ reply, feed, query }: FeedPoll) => {
    const { url } = reply.request;
    const search = url.indexOf('?');
    const uri = `${feedPath(feed)}${search === -1 ? '' : url.slice(search)}`;
    const page = buildFeedPage(store.feed(feed), feed, query, uri, store.lastTimestamp);
    reply.type('application/json').send(page.body);
  };
  const polls = createLongPollResponder<FeedPoll>({
    available: ({ feed, query }) => countInRange(store.feed(feed), query.after, query.before),
    send: sendPage,
  });
  store.onCommit((events) => polls.notify(events));
  internals.set(app.server, { store, waiters: polls.waiters });
  app.resets.set('events', () => store.clear());
  // Parked polls answer with what they have; their answers get 2 s to be written.
  app.addHook('preClose', () => polls.releaseAll(2000));
  app.addHook('onClose', async () => {
    internals.delete(app.server);
  });

  // Write bodies arrive as text: the route verifies the JWS or parses the legacy JSON itself.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/jose', 'application/json'],
    { parseAs: 'string', bodyLimit: limits.maxBodyBytes },
    (_request, body, done) => done(null, body),
  );

  app.post('/put', { schema: putSchema }, async (request, reply) => {
    const type = mediaType(request);
    const text = typeof request.body === 'string' ? request.body : '';
    let payload: unknown;
    if (type === 'application/jose') {
      const payloadText = await verifyEventJws(text, app.config.eventWriterKeys);
      payload = parseEventJson(payloadText, 'The JWS payload', limits.maxJsonDepth);
    } else if (type === 'application/json' && !app.config.requireSignedEvents) {
      payload = parseEventJson(text, 'The body', limits.maxJsonDepth);
    } else {
      throw new ApiError(
        415,
        'unsupported_media_type',
        app.config.requireSignedEvents
          ? 'Send events as a JWS with Content-Type: application/jose'
          : 'Send events with Content-Type: application/jose (JWS) or application/json',
      );
    }
    await store.append(validateEvents(payload, limits));
    return reply.code(201).send();
  });

  // The built-in issuer's key may be made after the server starts: read on first use.
  let builtIn: readonly TrustedKey[] | undefined;
  const readerKeys = async (): Promise<readonly TrustedKey[]> => {
    if (app.config.eventReaderKeys) return app.config.eventReaderKeys;
    if (builtIn) return builtIn;
    const issuer = await app.keyring.get('issuer');
    builtIn = [{ kid: issuer.kid, key: issuer.publicKey }];
    return builtIn;
  };

  // The feed a read route names (its params are known before any hook runs).
  const feedOf = (params: unknown): string => {
    const { eventSourceId, eventObjectType, eventObjectId } = params as Record<string, string>;
    return eventSourceId ?? objectFeedName(eventObjectType!, eventObjectId!);
  };
  // Route -> auth hook -> handler: reads are authorized before anything else of them runs.
  const authorizeFeedRead = async (request: FastifyRequest) =>
    authorizeRead(
      request.headers.authorization,
      feedOf(request.params),
      await readerKeys(),
      app.clock.now(),
    );

  // Not async: a parked poll keeps no promise chain, only its waiter (bench row 5).
  const readFeed = (request: FastifyRequest, reply: FastifyReply, feed: string): void => {
    const query = parseFeedQuery(request.query as Record<string, unknown>);
    const poll: FeedPoll = { reply, feed, query };
    const canGrow = query.before === undefined || query.before > store.lastTimestamp + 1n;
    const wait = query.after !== undefined && query.maxWaitMs > 0 && canGrow;
    const { maxEventCount, minWaitMs, maxWaitMs } = query;
    if (wait && polls.park(poll, { feed, maxEventCount, minWaitMs, maxWaitMs })) return;
    sendPage(poll);
  };

  app.get<{ Params: { eventSourceId: string } }>(
    '/get/:eventSourceId',
    { schema: sourceFeedSchema(limits.maxIdLength), onRequest: authorizeFeedRead },
    (request, reply) => {
      const { eventSourceId } = request.params;
      checkFeedSegment(eventSourceId, 'eventSourceId');
      readFeed(request, reply, eventSourceId);
    },
  );

  app.get<{ Params: { eventObjectType: string; eventObjectId: string } }>(
    '/get/:eventObjectType/:eventObjectId',
    { schema: objectFeedSchema(limits.maxIdLength), onRequest: authorizeFeedRead },
    (request, reply) => {
      const { eventObjectType, eventObjectId } = request.params;
      checkFeedSegment(eventObjectType, 'eventObjectType');
      checkFeedSegment(eventObjectId, 'eventObjectId');
      readFeed(request, reply, objectFeedName(eventObjectType, eventObjectId));
    },
  );
}
