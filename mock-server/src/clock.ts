/** The server's notion of time: a base clock plus an offset that the admin API can move. */
export interface Clock {
  /** Current time in milliseconds since the epoch, offset applied. */
  now(): number;
  /** Offset added to the base clock, in milliseconds (admin `PUT /admin/clock`). */
  offsetMs: number;
}

/** Creates a clock over `base` (default `Date.now`). */
export function createClock(base: () => number = Date.now): Clock {
  const clock: Clock = {
    offsetMs: 0,
    now: () => base() + clock.offsetMs,
  };
  return clock;
}
