const NS_PER_MS = 1_000_000n;

/** Hands out `eventReceived` timestamps. */
export interface TimestampSource {
  /** The next timestamp: strictly greater than every one handed out or raised to before. */
  next(): bigint;
  /** The largest timestamp handed out so far (or raised to). */
  readonly last: bigint;
  /** Makes every later timestamp greater than `ts` (used when replaying the log). */
  raise(ts: bigint): void;
}

/**
 * Nanosecond timestamps from a millisecond clock: `now() × 10⁶`, or one more than the previous
 * timestamp when that is not larger. They never go backwards, even when the clock does (an admin
 * clock offset moved back, or a restart on a slower clock).
 *
 * @param now - clock in milliseconds since the epoch
 * @example
 * const stamps = createTimestampSource(() => app.clock.now());
 * stamps.next(); // 1_800_000_000_000_000_000n
 */
export function createTimestampSource(now: () => number): TimestampSource {
  let last = 0n;
  return {
    next() {
      const fromClock = BigInt(Math.floor(now())) * NS_PER_MS;
      last = fromClock > last ? fromClock : last + 1n;
      return last;
    },
    get last() {
      return last;
    },
    raise(ts) {
      if (ts > last) last = ts;
    },
  };
}
