import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredEvent } from '../store/event-index.js';
import { FeedWaiters } from './feed-waiters.js';

const event = (source: string, object?: string): StoredEvent => ({
  ts: 1n,
  text: '{}',
  source,
  object,
});

/** A poll that records when it was answered. */
interface Poll {
  name: string;
  available: number;
  answered: number;
}

describe('FeedWaiters', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const setup = () => {
    const answered: string[] = [];
    const waiters = new FeedWaiters<Poll>({
      available: (poll) => poll.available,
      answer: (poll) => {
        poll.answered++;
        answered.push(poll.name);
      },
    });
    const poll = (name: string, available = 0): Poll => ({ name, available, answered: 0 });
    return { waiters, answered, poll };
  };

  it('keeps one timer per waiter and answers each once on maxWaitMs', async () => {
    const { waiters, poll } = setup();
    const polls = Array.from({ length: 100 }, (_, i) => poll(`p${i}`));
    for (const p of polls) {
      expect(
        waiters.park(p, { feed: 'f', maxEventCount: 10, minWaitMs: 0, maxWaitMs: 500 }),
      ).toBeDefined();
    }
    expect(waiters.size).toBe(100);
    expect(vi.getTimerCount()).toBe(100);
    await vi.advanceTimersByTimeAsync(499);
    expect(polls.some((p) => p.answered > 0)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls.every((p) => p.answered === 1)).toBe(true);
    expect(waiters.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('parks nothing when the poll should answer now', () => {
    const { waiters, poll } = setup();
    const options = { feed: 'f', maxEventCount: 2, minWaitMs: 0, maxWaitMs: 1000 };
    expect(waiters.park(poll('full', 2), options)).toBeUndefined();
    expect(waiters.park(poll('some', 1), options)).toBeUndefined();
    expect(waiters.park(poll('no wait', 0), { ...options, maxWaitMs: 0 })).toBeUndefined();
    expect(waiters.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('wakes only the waiters of the committed feeds, and honours minWaitMs', async () => {
    const { waiters, answered, poll } = setup();
    const options = { maxEventCount: 5, minWaitMs: 100, maxWaitMs: 1000 };
    const bySource = poll('src');
    const byObject = poll('dev/1');
    const other = poll('other');
    waiters.park(bySource, { ...options, feed: 'src' });
    waiters.park(byObject, { ...options, feed: 'dev/1', minWaitMs: 0 });
    waiters.park(other, { ...options, feed: 'other' });
    bySource.available = 1;
    byObject.available = 1;
    other.available = 1;
    waiters.notify([event('src', 'dev/1')]);
    expect(answered).toEqual(['dev/1']);
    expect(vi.getTimerCount()).toBe(2); // the minWaitMs timer replaced src's maxWaitMs timer
    await vi.advanceTimersByTimeAsync(100);
    expect(answered).toEqual(['dev/1', 'src']);
    other.available = 5;
    waiters.notify([event('other')]);
    expect(answered).toEqual(['dev/1', 'src', 'other']);
    expect(waiters.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('arms minWaitMs at once when an event is already there', async () => {
    const { waiters, answered, poll } = setup();
    waiters.park(poll('p', 1), { feed: 'f', maxEventCount: 5, minWaitMs: 50, maxWaitMs: 1000 });
    await vi.advanceTimersByTimeAsync(49);
    expect(answered).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(answered).toEqual(['p']);
  });

  it('drops a cancelled waiter without answering, and releaseAll answers the rest', async () => {
    const { waiters, answered, poll } = setup();
    const options = { feed: 'f', maxEventCount: 1, minWaitMs: 0, maxWaitMs: 60_000 };
    const gone = waiters.park(poll('gone'), options)!;
    waiters.park(poll('kept'), options);
    expect(waiters.cancel(gone)).toBe(true);
    expect(waiters.cancel(gone)).toBe(false);
    expect(waiters.size).toBe(1);
    waiters.releaseAll();
    expect(answered).toEqual(['kept']);
    expect(waiters.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(answered).toEqual(['kept']);
  });
});
