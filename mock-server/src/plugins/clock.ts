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

/**
 * An `onSend` hook that sets each answer's `Date` header from `clock` (RFC 9110 IMF-fixdate), so
 * an admin clock offset moves the time the services show as well as the times in their tokens:
 * clients read the services' time from it (docs/trust-model.md "One clock"). With
 * `onlyWhenOffset`, answers keep Node's own `Date` while the offset is 0 (the hot path).
 */
export function dateHeaderHook(clock: Clock, options: { onlyWhenOffset?: boolean } = {}) {
  return async (_request: unknown, reply: { header(name: string, value: string): unknown }) => {
    if (options.onlyWhenOffset && clock.offsetMs === 0) return;
    reply.header('date', new Date(clock.now()).toUTCString());
  };
}
