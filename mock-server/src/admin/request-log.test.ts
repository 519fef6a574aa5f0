import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestLog, type RequestLogEntry } from './request-log.js';

const entry = (n: number): Omit<RequestLogEntry, 'seq'> => ({
  at: n,
  service: 'main',
  method: 'GET',
  route: `/r${n}`,
  path: `/r${n}`,
  status: 200,
  ms: 1,
});

describe('RequestLog', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('numbers entries from 1 and reads them after a cursor', () => {
    const log = new RequestLog(10);
    for (let n = 1; n <= 3; n++) log.record(entry(n));
    expect(log.lastSeq).toBe(3);
    expect(log.since(0)).toEqual({
      entries: [1, 2, 3].map((n) => ({ seq: n, ...entry(n) })),
      dropped: 0,
    });
    expect(log.since(2).entries.map((e) => e.seq)).toEqual([3]);
    expect(log.since(3)).toEqual({ entries: [], dropped: 0 });
    expect(log.since(0, 2).entries.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('keeps only the last `capacity` entries and says how many a reader missed', () => {
    const log = new RequestLog(4);
    for (let n = 1; n <= 10; n++) log.record(entry(n));
    expect(log.since(0)).toMatchObject({ dropped: 6 });
    expect(log.since(0).entries.map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    expect(log.since(5)).toMatchObject({ dropped: 1 });
    expect(log.since(8).entries.map((e) => e.seq)).toEqual([9, 10]);
  });

  it('tells subscribers once per 100 ms however many entries came, and nobody after unsubscribe', async () => {
    vi.useFakeTimers();
    const log = new RequestLog();
    const heard = vi.fn();
    const stop = log.subscribe(heard);
    for (let n = 1; n <= 50; n++) log.record(entry(n));
    expect(heard).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    expect(heard).toHaveBeenCalledTimes(1);
    stop();
    expect(log.subscriberCount).toBe(0);
    log.record(entry(51));
    await vi.advanceTimersByTimeAsync(1000);
    expect(heard).toHaveBeenCalledTimes(1);
    // No reader: recording schedules nothing.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps telling the other subscribers when one throws', async () => {
    vi.useFakeTimers();
    const log = new RequestLog();
    const good = vi.fn();
    log.subscribe(() => {
      throw new Error('reader bug');
    });
    log.subscribe(good);
    log.record(entry(1));
    await vi.advanceTimersByTimeAsync(100);
    expect(good).toHaveBeenCalledTimes(1);
  });

  it('refuses a capacity below 1', () => {
    expect(() => new RequestLog(0)).toThrow(TypeError);
  });
});
