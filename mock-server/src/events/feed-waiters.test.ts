import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredEvent } from '../store/event-index.js';
import { FeedWaiters } from './feed-waiters.js';

const event = (source: string, object?: string): StoredEvent => ({
  ts: 1n,
  text: '{}',
  source,
  object,
});

describe('FeedWaiters', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const settled = (promise: Promise<void>) => {
    let done = false;
    void promise.then(() => {
      done = true;
    });
    return () => done;
  };

  it('keeps one timer per waiter and ends on maxWaitMs', async () => {
    const waiters = new FeedWaiters();
    const polls = Array.from({ length: 100 }, () =>
      settled(
        waiters.wait({
          feed: 'f',
          available: () => 0,
          maxEventCount: 10,
          minWaitMs: 0,
          maxWaitMs: 500,
        }),
      ),
    );
    expect(waiters.size).toBe(100);
    expect(vi.getTimerCount()).toBe(100);
    await vi.advanceTimersByTimeAsync(499);
    expect(polls.some((done) => done())).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls.every((done) => done())).toBe(true);
    expect(waiters.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('wakes only the waiters of the committed feeds, and honours minWaitMs', async () => {
    const waiters = new FeedWaiters();
    let available = 0;
    const options = {
      available: () => available,
      maxEventCount: 5,
      minWaitMs: 100,
      maxWaitMs: 1000,
    };
    const bySource = settled(waiters.wait({ ...options, feed: 'src' }));
    const byObject = settled(waiters.wait({ ...options, feed: 'dev/1', minWaitMs: 0 }));
    const other = settled(waiters.wait({ ...options, feed: 'other' }));
    available = 1;
    waiters.notify([event('src', 'dev/1')]);
    await vi.advanceTimersByTimeAsync(0);
    expect([bySource(), byObject(), other()]).toEqual([false, true, false]);
    expect(vi.getTimerCount()).toBe(2); // the minWaitMs timer replaced src's maxWaitMs timer
    await vi.advanceTimersByTimeAsync(100);
    expect([bySource(), other()]).toEqual([true, false]);
    available = 5;
    waiters.notify([event('other')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(other()).toBe(true);
    expect(waiters.size).toBe(0);
  });

  it('ends on abort and on releaseAll, clearing timers', async () => {
    const waiters = new FeedWaiters();
    const controller = new AbortController();
    const options = {
      feed: 'f',
      available: () => 0,
      maxEventCount: 1,
      minWaitMs: 0,
      maxWaitMs: 60_000,
    };
    const aborted = settled(waiters.wait({ ...options, signal: controller.signal }));
    const released = settled(waiters.wait(options));
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect([aborted(), released()]).toEqual([true, false]);
    waiters.releaseAll();
    await vi.advanceTimersByTimeAsync(0);
    expect(released()).toBe(true);
    expect(waiters.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
