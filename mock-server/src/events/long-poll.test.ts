import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mintReadToken, putJson } from '../../test/helpers/events.js';
import { buildApp } from '../app.js';
import { getEventsInternals } from './index.js';

type App = Awaited<ReturnType<typeof buildApp>>;

interface Feed {
  count: number;
  updateUrl: string;
  objects: Array<Record<string, unknown>>;
}

describe('long polling over real HTTP', () => {
  let app: App;
  let base: string;
  let token: string;

  beforeAll(async () => {
    app = await buildApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/events`;
    token = await mintReadToken(app);
  });
  afterAll(() => app.close());

  const waiters = () => getEventsInternals(app)!.waiters;
  const last = () => getEventsInternals(app)!.store.lastTimestamp.toString();
  const poll = async (url: string, signal?: AbortSignal): Promise<Feed> => {
    const res = await fetch(`${base}/get/${url}`, {
      headers: { authorization: `Bearer ${token}` },
      ...(signal ? { signal } : {}),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Feed;
  };
  const parked = (n: number) => vi.waitFor(() => expect(waiters().size).toBe(n));

  it('answers as soon as an event for its feed is written', async () => {
    const after = last();
    const reply = poll(`lp1?after=${after}&maxWaitMs=60000`);
    await parked(1);
    // Events of other feeds do not wake it.
    expect(await putJson(app, { eventType: 'Other', eventSourceId: 'elsewhere' })).toBe(201);
    expect(waiters().size).toBe(1);
    expect(await putJson(app, { eventType: 'Hit', eventSourceId: 'lp1' })).toBe(201);
    const feed = await reply;
    expect(feed.count).toBe(1);
    expect(feed.objects[1]).toMatchObject({ eventType: 'Hit' });
    expect(waiters().size).toBe(0);
  });

  it('wakes object-feed readers too', async () => {
    const reply = poll(`device/lp?after=${last()}&maxWaitMs=60000`);
    await parked(1);
    const event = {
      eventType: 'Hit',
      eventSourceId: 's',
      eventObjectType: 'device',
      eventObjectId: 'lp',
    };
    expect(await putJson(app, event)).toBe(201);
    expect((await reply).count).toBe(1);
  });

  it('answers with an empty page once maxWaitMs passes', async () => {
    const after = last();
    const feed = await poll(`lp2?after=${after}&maxWaitMs=30`);
    expect(feed.count).toBe(0);
    expect(feed.objects).toHaveLength(2);
    expect(feed.updateUrl).toBe(`lp2?after=${after}`);
    expect(waiters().size).toBe(0);
  });

  it('holds the answer for minWaitMs after a first event unless maxEventCount is reached', async () => {
    const reply = poll(`lp3?after=${last()}&minWaitMs=60000&maxWaitMs=60000&maxEventCount=2`);
    await parked(1);
    expect(await putJson(app, { eventType: 'First', eventSourceId: 'lp3' })).toBe(201);
    // A commit wakes waiters synchronously: had minWaitMs been ignored, it would be gone now.
    expect(waiters().size).toBe(1);
    expect(await putJson(app, { eventType: 'Second', eventSourceId: 'lp3' })).toBe(201);
    const feed = await reply;
    expect(feed.objects.slice(1, -1).map((e) => e.eventType)).toEqual(['First', 'Second']);
  });

  it('answers with the waiting events once a short minWaitMs passes', async () => {
    const reply = poll(`lp4?after=${last()}&minWaitMs=20&maxWaitMs=60000`);
    await parked(1);
    expect(
      await putJson(
        app,
        [1, 2, 3].map((n) => ({ eventType: 'E', eventSourceId: 'lp4', n })),
      ),
    ).toBe(201);
    const feed = await reply;
    expect(feed.count).toBe(3);
  });

  it('answers at once when events are already there, and never waits without after', async () => {
    expect(await putJson(app, { eventType: 'Ready', eventSourceId: 'lp5' })).toBe(201);
    const feed = await poll('lp5?after=0&maxWaitMs=60000');
    expect(feed.count).toBe(1);
    const plain = await poll('lp-empty?maxWaitMs=60000');
    expect(plain.count).toBe(0);
  });

  it('releases the waiter of a client that disconnects', async () => {
    const controller = new AbortController();
    const reply = poll(`lp6?after=${last()}&maxWaitMs=60000`, controller.signal);
    await parked(1);
    controller.abort();
    await expect(reply).rejects.toThrow();
    await parked(0);
  });

  it('parks a thousand idle polls on one feed and answers them all with one write', async () => {
    const after = last();
    const replies = Array.from({ length: 1000 }, () => poll(`lp7?after=${after}&maxWaitMs=60000`));
    await vi.waitFor(() => expect(waiters().size).toBe(1000), { timeout: 20_000 });
    expect(await putJson(app, { eventType: 'Fanout', eventSourceId: 'lp7' })).toBe(201);
    const feeds = await Promise.all(replies);
    expect(feeds.every((feed) => feed.count === 1)).toBe(true);
    expect(waiters().size).toBe(0);
  });
});

describe('shutdown with parked long polls', () => {
  it('completes app.close() and answers the parked polls', async () => {
    const app = await buildApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const token = await mintReadToken(app);
    const replies = Array.from({ length: 3 }, (_, i) =>
      fetch(`http://127.0.0.1:${port}/events/get/f${i}?after=0&maxWaitMs=60000`, {
        headers: { authorization: `Bearer ${token}` },
      }).then(
        (res) => res.status,
        () => 'disconnected',
      ),
    );
    const waiters = getEventsInternals(app)!.waiters;
    await vi.waitFor(() => expect(waiters.size).toBe(3));
    await app.close();
    expect(waiters.size).toBe(0);
    expect(await Promise.all(replies)).toEqual([200, 200, 200]);
  });
});
