import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TrustedKey } from '../crypto/public-keys.js';
import { ApiError } from '../errors.js';
import { createEventStore, type EventStore, objectFeedName } from '../store/event-store.js';
import { authorizeRead } from './authorize-read.js';
import { buildFeedPage, countInRange, feedPath } from './build-feed.js';
import { parseFeedQuery } from './feed-query.js';
import { FeedWaiters } from './feed-waiters.js';
import { objectFeedSchema, putSchema, sourceFeedSchema } from './schemas.js';
import { validateEvents } from './validate-events.js';
import { JwsError, parseCompactJws, verifyCompactJws } from './verify-jws.js';

/** Largest accepted write body: 1 MiB (DECISIONS.md). */
export const MAX_EVENT_BODY_BYTES = 1024 * 1024;

/** Internals of a running events service, for tests and diagnostics. */
export interface EventsInternals {
  readonly store: EventStore;
  readonly waiters: FeedWaiters;
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

function parseJson(text: string, what: string): unknown {
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
  const store = await createEventStore({
    dataDir: app.config.dataDir,
    now: () => app.clock.now(),
  });
  const waiters = new FeedWaiters();
  store.onCommit((events) => waiters.notify(events));
  internals.set(app.server, { store, waiters });
  app.resets.set('events', () => store.clear());

  // Responses of long polls that are still being written; shutdown waits for them.
  const answering = new Set<Promise<void>>();
  app.addHook('preClose', async () => {
    waiters.releaseAll();
    if (answering.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(answering),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 2000);
      }),
    ]);
    clearTimeout(timer);
  });
  app.addHook('onClose', async () => {
    internals.delete(app.server);
    await store.close();
  });

  // Write bodies arrive as text: the route verifies the JWS or parses the legacy JSON itself.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/jose', 'application/json'],
    { parseAs: 'string', bodyLimit: MAX_EVENT_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.post('/put', { schema: putSchema }, async (request, reply) => {
    const type = mediaType(request);
    const text = typeof request.body === 'string' ? request.body : '';
    let payload: unknown;
    if (type === 'application/jose') {
      let jws: ReturnType<typeof parseCompactJws>;
      try {
        jws = parseCompactJws(text);
        if (app.config.eventWriterKeys.length > 0) {
          verifyCompactJws(jws, app.config.eventWriterKeys);
        }
      } catch (err) {
        if (err instanceof JwsError && err.reason === 'bad_signature') {
          throw new ApiError(401, 'invalid_signature', err.message);
        }
        throw new ApiError(400, 'invalid_request', (err as Error).message);
      }
      payload = parseJson(jws.payloadText, 'The JWS payload');
    } else if (type === 'application/json' && !app.config.requireSignedEvents) {
      payload = parseJson(text, 'The body');
    } else {
      throw new ApiError(
        415,
        'unsupported_media_type',
        app.config.requireSignedEvents
          ? 'Send events as a JWS with Content-Type: application/jose'
          : 'Send events with Content-Type: application/jose (JWS) or application/json',
      );
    }
    await store.append(validateEvents(payload));
    return reply.code(201).send();
  });

  const readerKeys = (): readonly TrustedKey[] =>
    app.config.eventReaderKeys ?? [
      { kid: app.keyring.issuer.kid, key: app.keyring.issuer.publicKey },
    ];

  const readFeed = async (request: FastifyRequest, reply: FastifyReply, feed: string) => {
    authorizeRead(request.headers.authorization, feed, readerKeys(), app.clock.now());
    const query = parseFeedQuery(request.query as Record<string, unknown>);
    const canGrow = query.before === undefined || query.before > store.lastTimestamp + 1n;
    if (query.after !== undefined && query.maxWaitMs > 0 && canGrow) {
      const settled = new Promise<void>((resolve) => {
        reply.raw.once('close', resolve);
        reply.raw.once('finish', resolve);
      });
      answering.add(settled);
      void settled.then(() => answering.delete(settled));
      await waiters.wait({
        feed,
        available: () => countInRange(store.feed(feed), query.after, query.before),
        maxEventCount: query.maxEventCount,
        minWaitMs: query.minWaitMs,
        maxWaitMs: query.maxWaitMs,
        signal: request.signal,
      });
      // The client went away while parked: nobody to answer.
      if (request.signal.aborted) return reply.hijack();
    }
    const search = request.url.indexOf('?');
    const uri = `${feedPath(feed)}${search === -1 ? '' : request.url.slice(search)}`;
    const page = buildFeedPage(store.feed(feed), feed, query, uri, store.lastTimestamp);
    return reply.type('application/json').send(page.body);
  };

  app.get<{ Params: { eventSourceId: string } }>(
    '/get/:eventSourceId',
    { schema: sourceFeedSchema },
    async (request, reply) => {
      const { eventSourceId } = request.params;
      checkFeedSegment(eventSourceId, 'eventSourceId');
      return readFeed(request, reply, eventSourceId);
    },
  );

  app.get<{ Params: { eventObjectType: string; eventObjectId: string } }>(
    '/get/:eventObjectType/:eventObjectId',
    { schema: objectFeedSchema },
    async (request, reply) => {
      const { eventObjectType, eventObjectId } = request.params;
      checkFeedSegment(eventObjectType, 'eventObjectType');
      checkFeedSegment(eventObjectId, 'eventObjectId');
      return readFeed(request, reply, objectFeedName(eventObjectType, eventObjectId));
    },
  );
}
