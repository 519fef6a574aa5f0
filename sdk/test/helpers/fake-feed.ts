// A small in-memory event feed for msw, with the paging rules of DECISIONS.md ("Event data
// service"). Unit tests use it where the mock server would be too heavy.
import { HttpResponse, http } from 'msw';

export interface FakeEvent {
  eventType: string;
  eventSourceId: string;
  eventId: string;
  eventReceived: bigint;
  [field: string]: unknown;
}

export interface FakeFeed {
  /** The msw handler serving `GET <eventUrl>/get/<feed>`. */
  handler: ReturnType<typeof http.get>;
  /** Every request URL, in order. */
  requests: URL[];
  /** Appends events (their timestamps must ascend). */
  add(...events: FakeEvent[]): void;
}

/** Events `count` apart by `step` ns from `start`, type `Tick`, source `src`. */
export function makeEvents(count: number, start: bigint, step = 1n): FakeEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    eventType: 'Tick',
    eventSourceId: 'src',
    eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    eventReceived: start + BigInt(i) * step,
    seq: i,
  }));
}

/** Serializes a feed body with `eventReceived` as exact integer digits, as the server does. */
export function feedBody(body: { objects: Record<string, unknown>[]; [k: string]: unknown }) {
  const text = JSON.stringify(body, (_key, value) =>
    typeof value === 'bigint' ? `__digits__${value}` : value,
  );
  return text.replace(/"__digits__(\d+)"/g, '$1');
}

export function createFakeFeed(
  eventUrl: string,
  feed: string,
  initial: FakeEvent[] = [],
  /** How many events the fake serves for a maxEventCount (to fake a capping or careless server). */
  serve: (asked: number) => number = (asked) => asked,
): FakeFeed {
  const events = [...initial];
  const requests: URL[] = [];
  const handler = http.get(`${eventUrl}/get/${feed}`, ({ request }) => {
    const url = new URL(request.url);
    requests.push(url);
    const q = url.searchParams;
    const after = q.has('after') ? BigInt(q.get('after')!) : undefined;
    const before = q.has('before') ? BigInt(q.get('before')!) : undefined;
    const max = serve(Number(q.get('maxEventCount') ?? 1000));
    const newest = q.has('newest') ? q.get('newest') === 'true' : after === undefined;
    const range = events.filter(
      (e) =>
        (after === undefined || e.eventReceived > after) &&
        (before === undefined || e.eventReceived < before),
    );
    const page = range.length > max ? (newest ? range.slice(-max) : range.slice(0, max)) : range;
    const first = page[0]?.eventReceived ?? before ?? (after === undefined ? 0n : after + 1n);
    const last = page.at(-1)?.eventReceived ?? after ?? (before === undefined ? 0n : before - 1n);
    const body = {
      uri: url.pathname,
      updateUrl: `${feed}?after=${last}`,
      count: page.length,
      objects: [
        {
          eventType: 'instruction',
          instruction: 'older',
          url: `${feed}?before=${first}`,
          count: events.filter((e) => e.eventReceived < first).length,
        },
        ...page.map((e) => ({ ...e, eventReceived_str: e.eventReceived.toString() })),
        {
          eventType: 'instruction',
          instruction: 'newer',
          url: `${feed}?after=${last}`,
          count: events.filter((e) => e.eventReceived > last).length,
        },
      ],
    };
    return new HttpResponse(feedBody(body), { headers: { 'Content-Type': 'application/json' } });
  });
  return { handler, requests, add: (...more) => events.push(...more) };
}
