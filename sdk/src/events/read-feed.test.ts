import fc from 'fast-check';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createFakeFeed, feedBody, makeEvents } from '../../test/helpers/fake-feed.js';
import { useMswServer } from '../../test/helpers/msw-server.js';
import { ApiResponseError, LicensingError } from '../errors.js';
import { createEventClient } from './create-event-client.js';
import type { ReadOptions } from './read-feed.js';

const eventUrl = 'http://events.test/events';
const server = useMswServer();

const client = (pageSize = 10) =>
  createEventClient({ eventUrl, auth: { token: () => 'read-token' }, pageSize });

// 2^53 is about 9.0e15; these are about 1.8e18: a Number cannot tell neighbours apart.
const BASE = 1_800_000_000_000_000_000n;

async function toArray<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('read', () => {
  it('keeps timestamps beyond 2^53 exact, two events in the same millisecond included', async () => {
    // Same millisecond, differing only in the last digit; a Number would make them equal.
    const events = [
      ...makeEvents(1, BASE + 1n),
      ...makeEvents(1, BASE + 2n),
      ...makeEvents(1, BASE + 999_999n),
    ];
    expect(Number(BASE + 1n)).toBe(Number(BASE + 2n));
    const feed = createFakeFeed(eventUrl, 'src', events);
    server.use(feed.handler);

    const forward = await toArray(client(1).read('src'));
    expect(forward.map((e) => e.eventReceived)).toEqual([BASE + 1n, BASE + 2n, BASE + 999_999n]);
    expect(forward.map((e) => e.eventReceived_str)).toEqual([
      '1800000000000000001',
      '1800000000000000002',
      '1800000000000999999',
    ]);
    // The cursor between the two same-millisecond events is exact.
    expect(feed.requests[1]?.searchParams.get('after')).toBe('1800000000000000001');

    const backward = await toArray(client(1).read('src', { order: 'newest-first' }));
    expect(backward.map((e) => e.eventReceived)).toEqual([BASE + 999_999n, BASE + 2n, BASE + 1n]);
    expect(feed.requests.at(-1)?.searchParams.get('before')).toBe('1800000000000000002');
  });

  it('walks many pages in both directions, each event once, in order, with no extra request', async () => {
    const events = makeEvents(95, BASE, 7n);
    const feed = createFakeFeed(eventUrl, 'src', events);
    server.use(feed.handler);

    const forward = await toArray(client(10).read('src'));
    expect(forward.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(feed.requests).toHaveLength(10); // 9 full pages + 1 short one ends the walk
    expect(feed.requests[0]?.searchParams.get('newest')).toBe('false');

    feed.requests.length = 0;
    const backward = await toArray(client(10).read('src', { order: 'newest-first' }));
    expect(backward.map((e) => e.seq)).toEqual(events.map((e) => e.seq).reverse());
    expect(feed.requests).toHaveLength(10);
  });

  it('keeps walking a server that caps pages below pageSize, guided by instruction counts', async () => {
    const events = makeEvents(23, BASE);
    const feed = createFakeFeed(eventUrl, 'src', events, (asked) => Math.min(asked, 5));
    server.use(feed.handler);
    const forward = await toArray(client(10).read('src'));
    expect(forward.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(feed.requests).toHaveLength(5);
    const backward = await toArray(client(10).read('src', { order: 'newest-first' }));
    expect(backward.map((e) => e.seq)).toEqual(events.map((e) => e.seq).reverse());
  });

  it('resumes after the last kept event when a server sends more than asked', async () => {
    const events = makeEvents(12, BASE);
    // Ignores maxEventCount: always up to 1000 events.
    server.use(createFakeFeed(eventUrl, 'src', events, () => 1000).handler);
    const forward = await toArray(client(5).pages('src'));
    expect(forward.map((p) => p.events.map((e) => e.seq))).toEqual([
      [0, 1, 2, 3, 4],
      [5, 6, 7, 8, 9],
      [10, 11],
    ]);
    const backward = await toArray(client(5).pages('src', { order: 'newest-first' }));
    expect(backward.map((p) => p.events.map((e) => e.seq))).toEqual([
      [11, 10, 9, 8, 7],
      [6, 5, 4, 3, 2],
      [1, 0],
    ]);
  });

  // The contract: any range, page size and limit; a server capping pages below pageSize only
  // when the walk's far side is open (with both bounds, a short page must mean the range is done).
  it('yields exactly the events of any range, in order, for any page size, limit and server cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.bigInt({ min: 0n, max: 50n }), { maxLength: 40 }),
        fc.record({
          pageSize: fc.integer({ min: 1, max: 12 }),
          limit: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
          after: fc.option(fc.bigInt({ min: 0n, max: 50n }), { nil: undefined }),
          before: fc.option(fc.bigInt({ min: 0n, max: 50n }), { nil: undefined }),
          order: fc.constantFrom('oldest-first' as const, 'newest-first' as const),
          cap: fc.integer({ min: 1, max: 15 }),
        }),
        async (offsets, { pageSize, limit, after, before, order, cap }) => {
          const stamps = offsets.sort((a, b) => (a < b ? -1 : 1)).map((o) => BASE + o);
          const events = stamps.map((ts, i) => ({ ...makeEvents(1, ts)[0]!, seq: i }));
          const farSideOpen = order === 'oldest-first' ? before === undefined : after === undefined;
          const serve = (asked: number) => (farSideOpen ? Math.min(asked, cap) : asked);
          server.use(createFakeFeed(eventUrl, 'src', events, serve).handler);
          const from = after === undefined ? undefined : BASE + after;
          const to = before === undefined ? undefined : BASE + before;
          const read: ReadOptions = { pageSize, order };
          if (limit !== undefined) read.limit = limit;
          if (from !== undefined) read.after = from;
          if (to !== undefined) read.before = to;
          let expected = events.filter(
            (e) =>
              (from === undefined || e.eventReceived > from) &&
              (to === undefined || e.eventReceived < to),
          );
          if (order === 'newest-first') expected.reverse();
          expected = expected.slice(0, limit ?? expected.length);
          const got = await toArray(client().read('src', read));
          expect(got.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('honours after/before bounds given as bigint or string', async () => {
    const events = makeEvents(30, BASE);
    server.use(createFakeFeed(eventUrl, 'src', events).handler);
    const got = await toArray(
      client(4).read('src', { after: BASE + 4n, before: (BASE + 20n).toString() }),
    );
    expect(got.map((e) => e.seq)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    const back = await toArray(
      client(4).read('src', { after: BASE + 4n, before: BASE + 20n, order: 'newest-first' }),
    );
    expect(back.map((e) => e.seq)).toEqual(got.map((e) => e.seq).reverse());
  });

  it('stops at limit without another request, asking only for what is left', async () => {
    const feed = createFakeFeed(eventUrl, 'src', makeEvents(100, BASE));
    server.use(feed.handler);
    const got = await toArray(client(10).read('src', { limit: 25 }));
    expect(got).toHaveLength(25);
    expect(feed.requests.map((u) => u.searchParams.get('maxEventCount'))).toEqual([
      '10',
      '10',
      '5',
    ]);
  });

  it('stops on break without another request', async () => {
    const feed = createFakeFeed(eventUrl, 'src', makeEvents(100, BASE));
    server.use(feed.handler);
    let seen = 0;
    for await (const _ of client(10).read('src')) {
      if (++seen === 10) break;
    }
    expect(feed.requests).toHaveLength(1);
  });

  it('throws the abort reason and makes no further request once aborted', async () => {
    const feed = createFakeFeed(eventUrl, 'src', makeEvents(100, BASE));
    server.use(feed.handler);
    const controller = new AbortController();
    const reason = new Error('stop');
    const seen: number[] = [];
    await expect(async () => {
      for await (const event of client(10).read('src', { signal: controller.signal })) {
        seen.push(event.seq as number);
        if (seen.length === 15) controller.abort(reason);
      }
    }).rejects.toBe(reason);
    expect(seen).toHaveLength(15);
    expect(feed.requests).toHaveLength(2);
  });

  it('stops with FEED_CURSOR_REPEATED when the server sends the same cursor twice', async () => {
    let requests = 0;
    server.use(
      http.get(`${eventUrl}/get/src`, () => {
        requests += 1;
        const events = makeEvents(2, BASE).map((e) => ({
          ...e,
          eventReceived_str: e.eventReceived.toString(),
        }));
        // Ignores `after`: always the same page and the same newer instruction.
        return new HttpResponse(
          feedBody({
            uri: 'src',
            updateUrl: `src?after=${BASE + 1n}`,
            count: 2,
            objects: [
              { eventType: 'instruction', instruction: 'older', url: `src?before=${BASE}` },
              ...events,
              { eventType: 'instruction', instruction: 'newer', url: `src?after=${BASE + 1n}` },
            ],
          }),
          { headers: { 'Content-Type': 'application/json' } },
        );
      }),
    );
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const event of client(2).read('src')) seen.push(event.seq);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LicensingError);
    expect((error as LicensingError).code).toBe('FEED_CURSOR_REPEATED');
    expect(seen).toEqual([0, 1]);
    expect(requests).toBe(2);
  });

  it('pages carry a resumable cursor', async () => {
    const events = makeEvents(25, BASE);
    server.use(createFakeFeed(eventUrl, 'src', events).handler);
    const first = await client(10).pages('src')[Symbol.asyncIterator]().next();
    expect(first.done).toBe(false);
    const page = first.value!;
    expect(page.hasMore).toBe(true);
    expect(page.cursor).toBe((BASE + 9n).toString());
    const rest = await toArray(client(10).read('src', { after: page.cursor }));
    expect(rest.map((e) => e.seq)).toEqual(events.slice(10).map((e) => e.seq));
  });

  it('reads object feeds and requires a limit to collect', async () => {
    const feed = createFakeFeed(eventUrl, 'License/L-1', makeEvents(3, BASE));
    server.use(feed.handler);
    const got = await client().collect({ objectType: 'License', objectId: 'L-1' }, { limit: 2 });
    expect(got).toHaveLength(2);
    await expect(client().collect('src', {} as never)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it.each([['a/b'], [{ source: '' }], [{ objectType: 'License', objectId: 'x/y' }]])(
    'refuses the feed %j with INVALID_ARGUMENT before any request',
    (feed) => {
      expect(() => client().read(feed as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    },
  );

  it('refuses invalid range options with INVALID_ARGUMENT', () => {
    const c = client();
    for (const options of [
      { after: 12.5 },
      { after: '-1' },
      { before: 'abc' },
      { pageSize: 0 },
      { pageSize: 10_001 },
      { limit: 0 },
      { order: 'sideways' },
    ]) {
      expect(() => c.read('src', options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
  });

  it.each([
    [401, 'UNAUTHORIZED', 'invalid_token'],
    [403, 'FORBIDDEN', 'forbidden'],
    [404, 'NOT_FOUND', 'not_found'],
    [400, 'REQUEST_REJECTED', 'invalid_request'],
    [503, 'SERVICE_UNAVAILABLE', 'unavailable'],
  ])(
    'maps HTTP %i to ApiResponseError %s with the ApiError fields',
    async (status, code, error) => {
      server.use(
        http.get(`${eventUrl}/get/src`, () =>
          HttpResponse.json({ error, error_description: 'because' }, { status }),
        ),
      );
      const failure = await client()
        .collect('src', { limit: 1 })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ApiResponseError);
      expect(failure).toMatchObject({
        code,
        status,
        error,
        errorDescription: 'because',
        service: 'events',
      });
    },
  );

  it('maps a dropped connection to SERVICE_UNAVAILABLE', async () => {
    server.use(http.get(`${eventUrl}/get/src`, () => HttpResponse.error()));
    await expect(client().collect('src', { limit: 1 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('refuses a feed whose events lack eventReceived_str (the JSON number is never trusted)', async () => {
    server.use(
      http.get(`${eventUrl}/get/src`, () =>
        HttpResponse.text(
          `{"objects":[{"eventType":"instruction","instruction":"older","url":"src?before=1"},` +
            `{"eventType":"Tick","eventSourceId":"src","eventId":"e","eventReceived":1800000000000000001},` +
            `{"eventType":"instruction","instruction":"newer","url":"src?after=1800000000000000001"}]}`,
        ),
      ),
    );
    await expect(client().collect('src', { limit: 1 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      cause: expect.any(TypeError),
    });
  });

  it('sends the Bearer token', async () => {
    let authorization: string | null = null;
    server.use(
      http.get(`${eventUrl}/get/src`, ({ request }) => {
        authorization = request.headers.get('authorization');
        return HttpResponse.json({ error: 'x' }, { status: 500 });
      }),
    );
    await client()
      .collect('src', { limit: 1 })
      .catch(() => {});
    expect(authorization).toBe('Bearer read-token');
  });
});
