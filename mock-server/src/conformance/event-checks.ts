import { randomUUID } from 'node:crypto';
import { ensure, ensureApiError, ensureEqual, ensureStatus } from './expect.js';
import type { Check, CheckContext } from './runner.js';

interface FeedEvent {
  eventType: string;
  eventSourceId: string;
  eventId: string;
  eventReceived: number;
  eventReceived_str: string;
  [field: string]: unknown;
}

interface Instruction {
  eventType: 'instruction';
  instruction: 'older' | 'newer';
  url: string;
  count?: number | null;
}

interface Feed {
  uri: string;
  updateUrl: string;
  count: number;
  objects: Array<FeedEvent | Instruction>;
  events: FeedEvent[];
  older: Instruction;
  newer: Instruction;
  raw: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uniqueSource(label: string): string {
  return `conformance-${label}-${randomUUID().slice(0, 8)}`;
}

/** Writes events signed when a writer key is given, else as legacy JSON. */
async function put(ctx: CheckContext, body: unknown): Promise<Response> {
  if (ctx.signEvents) {
    return ctx.fetch(`${ctx.eventUrl}/put`, {
      method: 'POST',
      headers: { 'content-type': 'application/jose', accept: 'application/json' },
      body: await ctx.signEvents(body),
    });
  }
  return ctx.fetch(`${ctx.eventUrl}/put`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
}

async function putOk(ctx: CheckContext, body: unknown, what: string): Promise<void> {
  const res = await put(ctx, body);
  await ensureStatus(res, 201, what);
  ensureEqual(await res.text(), '', `${what}: 201 body`);
}

/** GET `/get/<feedPath>` with a Bearer token (default: one for every feed). */
async function readFeed(ctx: CheckContext, feedPath: string, token?: string): Promise<Response> {
  return ctx.fetch(`${ctx.eventUrl}/get/${feedPath}`, {
    headers: { authorization: `Bearer ${token ?? (await ctx.validReadToken())}` },
  });
}

async function getFeed(ctx: CheckContext, feedPath: string, token?: string): Promise<Feed> {
  const res = await readFeed(ctx, feedPath, token);
  await ensureStatus(res, 200, `GET /get/${feedPath}`);
  const raw = await res.text();
  const body = JSON.parse(raw) as Omit<Feed, 'events' | 'older' | 'newer' | 'raw'>;
  ensure(
    Array.isArray(body.objects) && body.objects.length >= 2,
    `feed ${feedPath}: objects must hold two instructions`,
  );
  const older = body.objects[0] as Instruction;
  const newer = body.objects.at(-1) as Instruction;
  ensureEqual([older.eventType, older.instruction], ['instruction', 'older'], 'first object');
  ensureEqual([newer.eventType, newer.instruction], ['instruction', 'newer'], 'last object');
  const events = body.objects.slice(1, -1) as FeedEvent[];
  ensureEqual(body.count, events.length, `feed ${feedPath}: count`);
  return { ...body, events, older, newer, raw };
}

/** Follows instruction urls (relative to /get/) until a page has no events. */
async function walk(
  ctx: CheckContext,
  start: string,
  direction: 'newer' | 'older',
): Promise<string[]> {
  const seen: string[] = [];
  let next = start;
  for (let pages = 0; pages < 1000; pages++) {
    const feed = await getFeed(ctx, next);
    if (feed.events.length === 0) return seen;
    const ids = feed.events.map((event) => event.eventId);
    seen.push(...(direction === 'newer' ? ids : ids.reverse()));
    next = (direction === 'newer' ? feed.newer : feed.older).url;
  }
  throw new Error(`paging ${direction} did not end after 1000 pages`);
}

/** Black-box checks of an event data service. Writes need --allow-management. */
export const eventChecks: Check[] = [
  {
    id: 'events.write.single-event',
    section: 'Events: write',
    service: 'events',
    rule: 'a single event is stored (201, empty body) with a generated UUID eventId and its fields kept',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('write');
      await putOk(
        ctx,
        { eventType: 'LicenseProvisioned', eventSourceId: source, data: { n: 1 } },
        'PUT one event',
      );
      const feed = await getFeed(ctx, source);
      ensureEqual(feed.count, 1, 'events in the new feed');
      const [event] = feed.events;
      ensure(UUID.test(String(event?.eventId)), `eventId ${String(event?.eventId)} is not a UUID`);
      ensureEqual(event?.data, { n: 1 }, 'data field');
      ensureEqual(event?.eventType, 'LicenseProvisioned', 'eventType');
    },
  },
  {
    id: 'events.write.all-or-nothing',
    section: 'Events: write',
    service: 'events',
    rule: 'invalid events get 400 invalid_request and a batch with one bad event writes nothing',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('invalid');
      const good = { eventType: 'T', eventSourceId: source };
      const bad: Array<[string, unknown]> = [
        ['eventReceived set by the writer', { ...good, eventReceived: 1 }],
        ['slash in eventSourceId', { ...good, eventSourceId: 'a/b' }],
        ['slash in eventObjectId', { ...good, eventObjectType: 'T', eventObjectId: 'a/b' }],
        ['slash in eventObjectType', { ...good, eventObjectType: 'a/b', eventObjectId: 'x' }],
        ['eventObjectId without eventObjectType', { ...good, eventObjectId: 'x' }],
        ['eventObjectType without eventObjectId', { ...good, eventObjectType: 'x' }],
        ['missing eventType', { eventSourceId: source }],
        ['missing eventSourceId', { eventType: 'T' }],
        ['a JSON string', 'hello'],
        ['an array with a number', [good, 7]],
        ['a batch with one bad event', [good, good, { ...good, eventReceived: 5 }]],
      ];
      for (const [what, body] of bad) {
        await ensureApiError(await put(ctx, body), 400, 'invalid_request', what);
      }
      ensureEqual((await getFeed(ctx, source)).count, 0, 'events written by refused requests');
    },
  },
  {
    id: 'events.write.body-too-large',
    section: 'Events: write',
    service: 'events',
    rule: 'a body over 1 MiB gets 413 request_too_large',
    needs: ['management'],
    async run(ctx) {
      const res = await put(ctx, {
        eventType: 'T',
        eventSourceId: uniqueSource('big'),
        data: 'x'.repeat(1_100_000),
      });
      await ensureApiError(res, 413, 'request_too_large', 'oversized body');
    },
  },
  {
    id: 'events.write.unsigned-jws',
    section: 'Events: write',
    service: 'events',
    rule: 'a JWS with alg none or HS256, or a body that is not a JWS, is refused with a 4xx ApiError',
    needs: ['management'],
    async run(ctx) {
      const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const event = { eventType: 'T', eventSourceId: uniqueSource('alg') };
      const bodies: Array<[string, string]> = [
        ['alg none', `${enc({ alg: 'none' })}.${enc(event)}.`],
        ['alg HS256', `${enc({ alg: 'HS256' })}.${enc(event)}.${enc('sig')}`],
        ['not a JWS', 'definitely not a jws'],
      ];
      for (const [what, body] of bodies) {
        const res = await ctx.fetch(`${ctx.eventUrl}/put`, {
          method: 'POST',
          headers: { 'content-type': 'application/jose' },
          body,
        });
        ensure(res.status >= 400 && res.status < 500, `${what}: expected 4xx, got ${res.status}`);
        await ensureApiError(res, res.status, undefined, what);
      }
      ensureEqual(
        (await getFeed(ctx, event.eventSourceId)).count,
        0,
        'events written by refused JWS',
      );
    },
  },
  {
    id: 'events.read-auth.missing-or-garbage-token',
    section: 'Events: read authorization',
    service: 'events',
    rule: 'no Authorization gets 401 unauthorized; a garbage token 401 invalid_token',
    async run(ctx) {
      const feed = `${ctx.eventUrl}/get/${uniqueSource('auth')}`;
      await ensureApiError(await ctx.fetch(feed), 401, 'unauthorized', 'no Authorization');
      const garbage = await readFeed(ctx, uniqueSource('auth'), 'not.a.jwt');
      await ensureApiError(garbage, 401, 'invalid_token', 'garbage Bearer token');
    },
  },
  {
    id: 'events.read-auth.claims-and-expiry',
    section: 'Events: read authorization',
    service: 'events',
    rule: 'a valid token without a claim for the feed gets 403 forbidden; an expired one 401 invalid_token',
    needs: ['readerSigner'],
    async run(ctx) {
      const source = uniqueSource('claims');
      const exp = Math.floor(Date.now() / 1000) + 600;
      const sign = ctx.signReadToken!;
      const other = await sign({ 'some-other-feed': true, exp });
      await ensureApiError(
        await readFeed(ctx, source, other),
        403,
        'forbidden',
        'token for another feed',
      );
      await getFeed(ctx, source, await sign({ [source]: true, exp }));
      const expired = await sign({ [source]: true, exp: exp - 1200 });
      await ensureApiError(
        await readFeed(ctx, source, expired),
        401,
        'invalid_token',
        'expired read token',
      );
      const noExp = await sign({ [source]: true });
      await ensureApiError(
        await readFeed(ctx, source, noExp),
        401,
        'invalid_token',
        'read token without exp',
      );
    },
  },
  {
    id: 'events.feeds.shape-and-timestamps',
    section: 'Events: feeds',
    service: 'events',
    rule: 'a feed is [older, events ascending, newer]; eventReceived digits equal eventReceived_str; updateUrl = newer url',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('shape');
      await putOk(
        ctx,
        [1, 2, 3].map((n) => ({ eventType: 'T', eventSourceId: source, n })),
        'PUT batch',
      );
      const feed = await getFeed(ctx, source);
      ensureEqual(
        feed.events.map((e) => e.n),
        [1, 2, 3],
        'batch order',
      );
      const stamps = feed.events.map((e) => BigInt(e.eventReceived_str));
      for (let i = 1; i < stamps.length; i++)
        ensure(stamps[i]! > stamps[i - 1]!, 'timestamps not strictly ascending');
      const rawDigits = [...feed.raw.matchAll(/"eventReceived"\s*:\s*(\d+)/g)].map((m) => m[1]);
      ensureEqual(
        rawDigits,
        feed.events.map((e) => e.eventReceived_str),
        'raw eventReceived digits',
      );
      ensureEqual(feed.updateUrl, feed.newer.url, 'updateUrl');
      ensureEqual(
        feed.newer.url,
        `${source}?after=${feed.events.at(-1)?.eventReceived_str}`,
        'newer url',
      );
      ensureEqual(
        feed.older.url,
        `${source}?before=${feed.events[0]?.eventReceived_str}`,
        'older url',
      );
    },
  },
  {
    id: 'events.feeds.object-feeds',
    section: 'Events: feeds',
    service: 'events',
    rule: 'object feeds /get/<type>/<id> hold the events naming that object',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('object');
      const objectId = randomUUID();
      await putOk(
        ctx,
        [
          {
            eventType: 'T',
            eventSourceId: source,
            eventObjectType: 'License',
            eventObjectId: objectId,
          },
          {
            eventType: 'T',
            eventSourceId: source,
            eventObjectType: 'License',
            eventObjectId: 'other',
          },
        ],
        'PUT object events',
      );
      const feed = await getFeed(ctx, `License/${objectId}`);
      ensureEqual(
        feed.events.map((e) => e.eventObjectId),
        [objectId],
        'object feed events',
      );
    },
  },
  {
    id: 'events.paging.walk-both-ways',
    section: 'Events: paging',
    service: 'events',
    rule: 'following newer instructions from the start and older ones from the end each visit every event once, in order',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('paging');
      const written: string[] = [];
      for (let batch = 0; batch < 5; batch++) {
        const events = Array.from({ length: 7 }, () => ({
          eventType: 'T',
          eventSourceId: source,
          eventId: randomUUID(),
        }));
        written.push(...events.map((e) => e.eventId));
        await putOk(ctx, events, `PUT batch ${batch}`);
      }
      const forward = await walk(ctx, `${source}?after=0&maxEventCount=4`, 'newer');
      ensureEqual(forward, written, 'events following newer instructions');
      const backward = await walk(ctx, `${source}?maxEventCount=4`, 'older');
      // The first page (newest 4, ascending) is reversed by walk, so the whole list is newest first.
      ensureEqual(backward, [...written].reverse(), 'events following older instructions');
    },
  },
  {
    id: 'events.paging.newest',
    section: 'Events: paging',
    service: 'events',
    rule: 'with after and no newest the page holds the oldest events; newest=true the newest',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('newest');
      await putOk(
        ctx,
        [1, 2, 3, 4].map((n) => ({ eventType: 'T', eventSourceId: source, n })),
        'PUT batch',
      );
      const forward = await getFeed(ctx, `${source}?after=0&maxEventCount=2`);
      ensureEqual(
        forward.events.map((e) => e.n),
        [1, 2],
        'after without newest',
      );
      const newest = await getFeed(ctx, `${source}?after=0&maxEventCount=2&newest=true`);
      ensureEqual(
        newest.events.map((e) => e.n),
        [3, 4],
        'after with newest=true',
      );
      const plain = await getFeed(ctx, `${source}?maxEventCount=2`);
      ensureEqual(
        plain.events.map((e) => e.n),
        [3, 4],
        'no after (newest by default)',
      );
    },
  },
  {
    id: 'events.paging.count-caps',
    section: 'Events: paging',
    service: 'events',
    rule: 'maxEventCount defaults to 1000 and is capped at 10 000',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('caps');
      // One batch of 10 001 small events stays under the 1 MiB body limit.
      const events = Array.from({ length: 10_001 }, () => ({
        eventType: 'T',
        eventSourceId: source,
      }));
      await putOk(ctx, events, 'PUT 10 001 events');
      ensureEqual((await getFeed(ctx, source)).count, 1000, 'events without maxEventCount');
      ensureEqual(
        (await getFeed(ctx, `${source}?maxEventCount=20000`)).count,
        10_000,
        'events with maxEventCount=20000',
      );
    },
  },
  {
    id: 'events.paging.bad-query',
    section: 'Events: paging',
    service: 'events',
    rule: 'non-numeric or negative query values get 400 invalid_request',
    async run(ctx) {
      const source = uniqueSource('params');
      const token = await ctx.validReadToken();
      for (const query of [
        'after=abc',
        'before=-5',
        'maxEventCount=-1',
        'maxEventCount=ten',
        'maxWaitMs=-1',
        'minWaitMs=x',
      ]) {
        const res = await readFeed(ctx, `${source}?${query}`, token);
        await ensureApiError(res, 400, 'invalid_request', `?${query}`);
      }
    },
  },
  {
    id: 'events.long-poll.wakes-on-write',
    section: 'Events: long polling',
    service: 'events',
    rule: 'a reader waiting with after and maxWaitMs returns the event written meanwhile; with none it returns an empty page',
    needs: ['management'],
    async run(ctx) {
      const source = uniqueSource('poll');
      await putOk(ctx, { eventType: 'T', eventSourceId: source, n: 0 }, 'PUT first event');
      const first = await getFeed(ctx, source);
      const cursor = first.events[0]!.eventReceived_str;
      const empty = await getFeed(ctx, `${source}?after=${cursor}&maxWaitMs=200`);
      ensureEqual(empty.count, 0, 'events after maxWaitMs with nothing written');
      const waiting = getFeed(ctx, `${source}?after=${cursor}&maxWaitMs=20000`);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await putOk(ctx, { eventType: 'T', eventSourceId: source, n: 1 }, 'PUT while a reader waits');
      const woken = await waiting;
      ensureEqual(
        woken.events.map((e) => e.n),
        [1],
        'events returned to the waiting reader',
      );
    },
  },
];
