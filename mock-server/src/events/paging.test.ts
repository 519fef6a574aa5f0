import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FeedResult,
  getFeed,
  mintReadToken,
  putJson,
  timestampsOf,
} from '../../test/helpers/events.js';
import { buildApp } from '../app.js';

type App = Awaited<ReturnType<typeof buildApp>>;

const TOTAL = 3000;

describe('feed paging', () => {
  let app: App;
  let token: string;
  /** Every timestamp of feed `pg`, ascending, as written. */
  let all: string[];
  /** Every timestamp of object feed `device/d1` (every third event). */
  let objectAll: string[];

  beforeAll(async () => {
    // Fixed clock: timestamps come from the monotonic step, many per millisecond.
    app = await buildApp({ now: () => 1_800_000_000_000 });
    token = await mintReadToken(app);
    let n = 0;
    // 3000 events of feed `pg` in 120 batches of 1 to 49 events, interleaved with other feeds.
    while (n < TOTAL) {
      const size = Math.min(TOTAL - n, 1 + ((n * 7) % 49));
      const batch = Array.from({ length: size }, (_, i) => ({
        eventType: 'Tick',
        eventSourceId: 'pg',
        n: n + i,
        ...((n + i) % 3 === 0 ? { eventObjectType: 'device', eventObjectId: 'd1' } : {}),
      }));
      expect(await putJson(app, batch)).toBe(201);
      expect(await putJson(app, { eventType: 'Noise', eventSourceId: 'other' })).toBe(201);
      n += size;
    }
    all = timestampsOf((await getFeed(app, 'pg?maxEventCount=10000', token)).body);
    objectAll = timestampsOf((await getFeed(app, 'device/d1?maxEventCount=10000', token)).body);
  });
  afterAll(() => app.close());

  const read = async (url: string): Promise<FeedResult> => {
    const feed = await getFeed(app, url, token);
    expect(feed.status, url).toBe(200);
    return feed;
  };
  const instruction = (feed: FeedResult, kind: 'older' | 'newer') =>
    feed.body.objects.find((item) => item.instruction === kind) as { url: string; count: number };
  const follow = async (start: string, kind: 'older' | 'newer', suffix: string) => {
    const seen: string[][] = [];
    let feed = await read(start);
    for (let guard = 0; guard < 10_000; guard++) {
      seen.push(timestampsOf(feed.body));
      const next = instruction(feed, kind);
      if (next.count === 0) break;
      feed = await read(`${next.url}${suffix}`);
      expect(feed.body.count).toBeGreaterThan(0);
    }
    return kind === 'newer' ? seen.flat() : seen.reverse().flat();
  };

  it('holds a strictly increasing, complete feed', () => {
    expect(all).toHaveLength(TOTAL);
    expect(objectAll).toHaveLength(TOTAL / 3);
    for (let i = 1; i < all.length; i++)
      expect(BigInt(all[i]!)).toBeGreaterThan(BigInt(all[i - 1]!));
  });

  for (const pageSize of [5, 100, 999, 10_000]) {
    for (const newest of [true, false]) {
      // Forward paging needs oldest-first pages and backward paging newest-first ones: `after`
      // alone means oldest-first, `before` alone newest-first. So each walk sends `newest` where
      // it agrees with its direction and leaves it implicit otherwise.
      const forward = newest ? '' : '&newest=false';
      const backward = newest ? '&newest=true' : '';
      it(`visits every event once following newer from the start (page ${pageSize}, newest ${newest})`, async () => {
        const suffix = `&maxEventCount=${pageSize}${forward}`;
        expect(await follow(`pg?after=0${suffix}`, 'newer', suffix)).toEqual(all);
      });
      it(`visits every event once following older from the end (page ${pageSize}, newest ${newest})`, async () => {
        const suffix = `&maxEventCount=${pageSize}${backward}`;
        const start = `pg?before=${BigInt(all.at(-1)!) + 1n}${suffix}`;
        expect(await follow(start, 'older', suffix)).toEqual(all);
      });
      it(`walks both ways from a first page with newest=${newest} (page ${pageSize})`, async () => {
        const first = `device/d1?maxEventCount=${pageSize}&newest=${newest}`;
        const older = await follow(first, 'older', `&maxEventCount=${pageSize}`);
        const newer = await follow(first, 'newer', `&maxEventCount=${pageSize}`);
        const page = timestampsOf((await read(first)).body);
        expect([...older, ...newer.slice(page.length)]).toEqual(objectAll);
      });
    }
  }

  it('writes eventReceived as exact digits equal to eventReceived_str', async () => {
    const feed = await read('pg?maxEventCount=10000');
    const pairs = [...feed.text.matchAll(/"eventReceived":(\d+),"eventReceived_str":"(\d+)"/g)];
    expect(pairs).toHaveLength(TOTAL);
    for (const [, digits, text] of pairs) expect(digits).toBe(text);
    // Number cannot hold them: parsing through JSON.parse would have rounded.
    expect(pairs.some(([, digits]) => String(Number(digits)) !== digits)).toBe(true);
  });

  it('pages after=<eventReceived_str> without repeating or skipping', async () => {
    for (const i of [0, 1, 2, 1499, 2998]) {
      const page = await read(`pg?after=${all[i]}&maxEventCount=2`);
      expect(timestampsOf(page.body)).toEqual(all.slice(i + 1, i + 3));
      const older = await read(`pg?before=${all[i]}&maxEventCount=2`);
      expect(timestampsOf(older.body)).toEqual(all.slice(Math.max(0, i - 2), i));
    }
    const last = await read(`pg?after=${all.at(-1)}`);
    expect(last.body.count).toBe(0);
  });
});
