import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { feedBody, makeEvents } from '../../test/helpers/fake-feed.js';
import { createEventClient } from './create-event-client.js';
import type { FollowRetryInfo } from './follow-feed.js';

const eventUrl = 'http://events.test/events';
const BASE = 1_800_000_000_000_000_000n;

/** A page answering `after=<cursor>` with these events (already > cursor). */
function page(events: ReturnType<typeof makeEvents>): Response {
  const last = events.at(-1)?.eventReceived;
  return new Response(
    feedBody({
      uri: 'src',
      objects: [
        { eventType: 'instruction', instruction: 'older', url: 'src?before=0' },
        ...events.map((e) => ({ ...e, eventReceived_str: e.eventReceived.toString() })),
        { eventType: 'instruction', instruction: 'newer', url: `src?after=${last ?? 0}` },
      ],
    }),
    { status: 200, headers: { 'Content-Type': 'application/json' } },
  );
}

/** A fetch that answers from a script, one entry per request, and records the `after` sent. */
function scriptedFetch(script: Array<() => Response | Promise<Response>>) {
  const afters: (string | null)[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input.toString());
    afters.push(url.searchParams.get('after'));
    const next = script.shift();
    if (next) return next();
    // Park like a long poll until the request's signal aborts, as fetch does.
    return new Promise<Response>((_, reject) => {
      init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
    });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, afters };
}

describe('follow', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('backs off on 500 and 429 (Retry-After), then resumes without skipping or repeating', async () => {
    const events = makeEvents(6, BASE + 1n);
    const { fetch, afters } = scriptedFetch([
      () => page(events.slice(0, 3)),
      () => Response.json({ error: 'boom' }, { status: 500 }),
      () => {
        throw new TypeError('socket hang up');
      },
      () =>
        Response.json(
          { error: 'too_many_requests' },
          { status: 429, headers: { 'Retry-After': '7' } },
        ),
      // A server that re-sends an already delivered event with the new ones: no repeat.
      () => page(events.slice(2, 6)),
    ]);
    const retries: FollowRetryInfo[] = [];
    const client = createEventClient({ eventUrl, fetch, auth: { token: () => 't' } });
    const iterator = client
      .follow('src', {
        retryDelayMs: 100,
        maxRetryDelayMs: 1000,
        random: () => 0.5,
        onRetry: (info) => retries.push(info),
      })
      [Symbol.asyncIterator]();

    const seen: bigint[] = [];
    for (let i = 0; i < 3; i++) seen.push((await iterator.next()).value!.eventReceived);
    const rest = (async () => {
      for (let i = 0; i < 3; i++) seen.push((await iterator.next()).value!.eventReceived);
    })();
    await vi.advanceTimersByTimeAsync(0);
    // First failure: 100 ms ceiling, equal jitter at 0.5 → 75 ms.
    expect(retries.map((r) => [r.attempt, r.delayMs, r.error.code])).toEqual([
      [1, 75, 'SERVICE_UNAVAILABLE'],
    ]);
    await vi.advanceTimersByTimeAsync(75);
    expect(retries.at(-1)).toMatchObject({ attempt: 2, delayMs: 150 });
    await vi.advanceTimersByTimeAsync(150);
    // 429 with Retry-After: 7 s beats the 300 ms backoff.
    expect(retries.at(-1)).toMatchObject({ attempt: 3, delayMs: 7000 });
    // One HTTP→error mapping for every service: a 429 is transient, SERVICE_UNAVAILABLE.
    expect(retries.at(-1)?.error).toMatchObject({ status: 429, code: 'SERVICE_UNAVAILABLE' });
    await vi.advanceTimersByTimeAsync(6999);
    expect(fetch).toHaveBeenCalledTimes(4);
    await vi.advanceTimersByTimeAsync(1);
    await rest;

    expect(seen).toEqual(events.map((e) => e.eventReceived));
    // Every reconnect resumed from the last delivered event, exactly.
    const cursor = (BASE + 3n).toString();
    expect(afters).toEqual(['0', cursor, cursor, cursor, cursor]);
    await iterator.return?.(undefined);
  });

  it('resumes from a saved cursor and stops on abort with the abort reason', async () => {
    const events = makeEvents(3, BASE + 10n);
    const { fetch, afters } = scriptedFetch([() => page(events)]);
    const client = createEventClient({ eventUrl, fetch, auth: { token: () => 't' } });
    const controller = new AbortController();
    const reason = new Error('shutdown');
    const seen: string[] = [];
    const done = (async () => {
      for await (const event of client.follow('src', {
        after: (BASE + 9n).toString(),
        signal: controller.signal,
      })) {
        seen.push(event.eventReceived_str);
      }
    })();
    const settled = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toHaveLength(3);
    // Now parked in a long poll; aborting ends the iterator with the reason.
    controller.abort(reason);
    expect(await settled).toBe(reason);
    expect(afters).toEqual([(BASE + 9n).toString(), (BASE + 12n).toString()]);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('sends the long-poll parameters and does not hammer a server that answers empty at once', async () => {
    const { fetch, afters } = scriptedFetch([() => page([]), () => page([])]);
    const client = createEventClient({ eventUrl, fetch });
    const iterator = client
      .follow('src', { maxWaitMs: 20_000, minWaitMs: 50, minPollIntervalMs: 1000 })
      [Symbol.asyncIterator]();
    void iterator.next();
    await vi.advanceTimersByTimeAsync(0);
    const url = new URL(String(vi.mocked(fetch).mock.calls[0]![0]));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      after: '0',
      maxWaitMs: '20000',
      minWaitMs: '50',
      newest: 'false',
    });
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(afters).toEqual(['0', '0']);
    void iterator.return?.(undefined);
  });

  it('retries a token provider that fails for a while (its identity provider may be down)', async () => {
    const events = makeEvents(1, BASE);
    const { fetch } = scriptedFetch([() => page(events)]);
    let calls = 0;
    const client = createEventClient({
      eventUrl,
      fetch,
      auth: {
        token: () => {
          calls += 1;
          if (calls === 1) throw new TypeError('fetch failed');
          return 't';
        },
      },
    });
    const retries: FollowRetryInfo[] = [];
    const next = client
      .follow('src', { retryDelayMs: 100, random: () => 0, onRetry: (info) => retries.push(info) })
      [Symbol.asyncIterator]()
      .next();
    await vi.advanceTimersByTimeAsync(50);
    expect(retries).toMatchObject([{ attempt: 1, delayMs: 50, error: { code: 'UNAUTHORIZED' } }]);
    expect((await next).value?.eventReceived).toBe(BASE);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('ends at once when its own signing key is unusable (not retried)', async () => {
    const { fetch } = scriptedFetch([]);
    const client = createEventClient({ eventUrl, fetch, auth: { privateKey: 'not a pem' } });
    const onRetry = vi.fn();
    await expect(
      client.follow('src', { onRetry })[Symbol.asyncIterator]().next(),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(onRetry).not.toHaveBeenCalled();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('ends with the error on a non-retryable refusal (403)', async () => {
    const { fetch } = scriptedFetch([() => Response.json({ error: 'forbidden' }, { status: 403 })]);
    const client = createEventClient({ eventUrl, fetch });
    await expect(client.follow('src')[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      error: 'forbidden',
    });
  });

  it('stops with FEED_CURSOR_REPEATED when the server keeps sending old events', async () => {
    const old = makeEvents(2, BASE);
    const { fetch } = scriptedFetch([() => page(old), () => page(old)]);
    const client = createEventClient({ eventUrl, fetch });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const event of client.follow('src')) seen.push(event.seq);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FEED_CURSOR_REPEATED' });
    expect(seen).toEqual([0, 1]);
  });
});
