// The SDK's one clock (docs/trust-model.md, "One clock"): the local clock, corrected by
// the offset to the services' clock learnt from their answers, and the rising time mark that
// tells a clock set back while offline. Every time check of the SDK reads it.
import { LicensingError } from '../errors.js';
import { formatTime } from '../internal/format-time.js';

/** Largest offset between the local clock and the services' that the SDK learns, in ms (24 h). */
export const MAX_CLOCK_SKEW_MS = 86_400_000;

/**
 * How far a new estimate of the offset must be from the one held to replace it, in ms: `Date`
 * and `iat` have whole seconds, and an answer takes time to arrive, so closer estimates are noise.
 */
export const OFFSET_RESOLUTION_MS = 2_000;

/** Latest time a JavaScript `Date` can hold, in ms: a time mark beyond it is not a time. */
export const MAX_TIME_MS = 8_640_000_000_000_000;

/** What the lease store keeps of the clock. */
export interface ClockState {
  /** No trusted time seen so far is later than this, in ms since the epoch. */
  timeMark: number;
  /** The services' clock minus the local clock, in ms, as last learnt online. */
  offsetMs: number;
}

/** The clock every check of the SDK asks (see {@link createTrustedClock}). */
export interface TrustedClock {
  /** The local clock (the injected `now`), in ms since the epoch. */
  local(): number;
  /** The local clock corrected by the services' offset: the time every lease check uses. */
  now(): number;
  /** The services' clock minus the local clock, in ms. */
  readonly offsetMs: number;
  /** The time mark, in ms: offline, a clock reading more than the tolerance earlier was set back. */
  readonly mark: number;
  /** True once an online answer taught the clock the services' time. */
  readonly anchored: boolean;
  /**
   * A verified online answer showed the services' time (ms): learn the offset (estimates more
   * than {@link MAX_CLOCK_SKEW_MS} off the local clock are not believed; ones within
   * {@link OFFSET_RESOLUTION_MS} of the held offset are noise) and re-anchor the mark on that
   * time, even when that lowers it (a corrected clock is never locked out).
   *
   * @returns false when the estimate was not believed.
   */
  observe(servicesTime: number): boolean;
  /**
   * An answer that proves nothing by itself (a JWK set) showed the services' time (ms): when it
   * is later than {@link TrustedClock.now} by more than {@link OFFSET_RESOLUTION_MS}, the offset
   * moves forward to it, and the mark rises to it. Unlike {@link TrustedClock.observe} it never
   * moves the clock back nor lowers the mark: only a verified answer re-anchors.
   */
  catchUp(servicesTime: number): void;
  /** A lease was accepted on this clock (offline): the mark rises to {@link TrustedClock.now}. */
  accepted(): void;
  /** The mark rises to at least `time` (ms), e.g. a verified lease's `iat`. */
  raise(time: number): void;
  /**
   * Throws `CLOCK_ROLLBACK` when {@link TrustedClock.now} reads more than the tolerance earlier
   * than the mark: the clock was set back since a lease was accepted.
   */
  assertNotRolledBack(): void;
  /** Takes the state a lease store kept. */
  restore(state: ClockState): void;
  /** The state to keep in the lease store. */
  snapshot(): ClockState;
}

/** What {@link createTrustedClock} needs. */
export interface TrustedClockOptions {
  /** The local clock, ms since the epoch. */
  now: () => number;
  /** Clock difference tolerated before a clock counts as set back, in ms. */
  toleranceMs: number;
}

/**
 * Creates the client's clock. Online answers teach it the services' time (the `Date` header, or
 * a fresh lease's `iat`); offline it reads the local clock corrected by the last offset learnt,
 * so a clock that is merely slow or fast is never taken for a rollback.
 *
 * @example
 * const clock = createTrustedClock({ now: Date.now, toleranceMs: 60_000 });
 * clock.observe(Date.parse(response.headers.get('date')!));
 * if (lease.exp * 1000 < clock.now()) expired();
 */
export function createTrustedClock(options: TrustedClockOptions): TrustedClock {
  const { now: local, toleranceMs } = options;
  let offsetMs = 0;
  let mark = 0;
  let anchored = false;
  const corrected = () => local() + offsetMs;
  return {
    local,
    now: corrected,
    get offsetMs() {
      return offsetMs;
    },
    get mark() {
      return mark;
    },
    get anchored() {
      return anchored;
    },
    observe(servicesTime) {
      const offset = servicesTime - local();
      if (!Number.isFinite(offset) || Math.abs(offset) > MAX_CLOCK_SKEW_MS) return false;
      if (Math.abs(offset - offsetMs) > OFFSET_RESOLUTION_MS) offsetMs = offset;
      mark = servicesTime;
      anchored = true;
      return true;
    },
    catchUp(servicesTime) {
      const offset = servicesTime - local();
      if (!Number.isFinite(offset) || Math.abs(offset) > MAX_CLOCK_SKEW_MS) return;
      if (offset - offsetMs > OFFSET_RESOLUTION_MS) offsetMs = offset;
      if (servicesTime > mark) mark = servicesTime;
    },
    accepted() {
      mark = Math.max(mark, corrected());
    },
    raise(time) {
      if (time > mark && time <= MAX_TIME_MS) mark = time;
    },
    assertNotRolledBack() {
      const at = corrected();
      if (at + toleranceMs >= mark) return;
      throw new LicensingError(
        'CLOCK_ROLLBACK',
        `The clock reads ${formatTime(at)}, earlier than ${formatTime(mark)}, when a lease was already accepted: the clock was set back. Set the system clock to the correct time, or let the app reach the licensing service once.`,
      );
    },
    restore(state) {
      offsetMs = state.offsetMs;
      mark = state.timeMark;
    },
    snapshot: () => ({ timeMark: mark, offsetMs }),
  };
}
