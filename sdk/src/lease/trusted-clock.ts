// The SDK's one clock (docs/trust-model.md, "One clock"): the local clock, corrected by the
// offset to the services' clock learnt from their signed answers; the running time, which never
// goes back while the app runs (the last trusted time judged on plus the monotonic time since);
// and the rising time mark that tells a clock set back while offline. Every time check of the SDK
// reads it.
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
  /**
   * The trusted time a restart resumes at, at least, in ms: the time judged on when the store was
   * written, plus the `restartChargeMs` that may pass before the next write.
   */
  usedUntil: number;
}

/** What an answer of a service says about the services' time, in ms since the epoch. */
export interface AnswerTimes {
  /** Its `Date` header (unsigned: a proxy may have written it), when readable. */
  date?: number | undefined;
  /** The `iat` of the fresh token it carries (signed), when it carries one. */
  signed?: number | undefined;
}

/** The clock every check of the SDK asks (see {@link createTrustedClock}). */
export interface TrustedClock {
  /** The local clock (the injected `now`), in ms since the epoch. */
  local(): number;
  /** The local clock corrected by the services' offset. */
  corrected(): number;
  /**
   * The trusted time every validity judgement uses: the largest of {@link TrustedClock.corrected},
   * the running time (the last trusted time judged on plus the monotonic time elapsed since) and
   * the time mark, plus the charge of a restart: the time the app before it had reached (kept in
   * the store as `usedUntil`, saved ahead by `restartChargeMs`) less where this start's clocks
   * read. A clock set back while the app runs, or before a restart, does not move it back.
   */
  now(): number;
  /** The services' clock minus the local clock, in ms. */
  readonly offsetMs: number;
  /** The time mark, in ms: offline, a clock reading more than the tolerance earlier was set back. */
  readonly mark: number;
  /** True once an online answer taught the clock the services' time. */
  readonly anchored: boolean;
  /**
   * The services' time of an answer: its signed `iat` where its `Date` is missing or disagrees
   * with it by more than the tolerance (a proxy or load balancer with a wrong clock), else its
   * `Date`; undefined when the answer says neither.
   */
  servicesTime(answer: AnswerTimes): number | undefined;
  /**
   * The time to judge a fresh answer at: its services' time, never earlier than the running time
   * (a replayed old answer is judged as old); {@link TrustedClock.now} when it says no time or
   * one more than {@link MAX_CLOCK_SKEW_MS} off the corrected clock.
   */
  judgeAt(servicesTime: number | undefined): number;
  /**
   * A verified answer showed the services' time (signed, or reconciled with its signed `iat`):
   * the offset is learnt and the mark and the running time re-anchor on it, even lower (a clock
   * that ran ahead and was corrected is never locked out). Not believed when it is more than
   * {@link MAX_CLOCK_SKEW_MS} off the local clock, or older (beyond the tolerance) than the last
   * services' time believed plus the monotonic time since: a replayed answer moves nothing.
   *
   * @returns false when it was not believed.
   */
  observeSigned(servicesTime: number): boolean;
  /**
   * An answer that proves nothing by itself (a JWK set) showed this `Date`: believed only where
   * it agrees, within the tolerance, with the last services' time believed plus the monotonic time
   * since (or when none was believed yet), and then only to move the clock forward: the offset
   * grows and the mark rises to it, never back.
   */
  observeUnsigned(date: number): void;
  /**
   * A lease was found valid at `time` (the client's trusted time, {@link TrustedClock.now}): the
   * running time and the mark rise to it, less the restart's charge (a charge is time used up, not
   * a time seen: quick restarts are no rollback).
   */
  held(time: number): void;
  /** The mark rises to at least `time` (ms), e.g. a verified lease's `iat`. */
  raise(time: number): void;
  /**
   * Throws `CLOCK_ROLLBACK` when {@link TrustedClock.corrected} reads more than the tolerance
   * earlier than the mark: the clock was set back since a lease was accepted.
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
  /**
   * A monotonic clock in ms (any origin): it never jumps when the system clock is set, and does
   * not count a system sleep. Default `performance.now()`.
   */
  monotonic?: () => number;
  /** Clock difference tolerated before a clock counts as set back, in ms. */
  toleranceMs: number;
  /**
   * How far ahead of the time judged on a store write saves `usedUntil`, in ms: at least the
   * longest a running client goes without writing its store, so that a restart (after a kill, with
   * the clock set back) resumes no earlier than where the app was. Default 0.
   */
  restartChargeMs?: number;
}

/** A trusted time and the monotonic reading when it was taken. */
interface Anchor {
  time: number;
  at: number;
}

/**
 * Creates the client's clock. Online answers teach it the services' time; offline it reads the
 * local clock corrected by the last offset learnt, so a clock that is merely slow or fast is never
 * taken for a rollback; while the app runs, the monotonic clock keeps it from going back.
 *
 * @example
 * const clock = createTrustedClock({ now: Date.now, toleranceMs: 60_000 });
 * clock.observeSigned(clock.servicesTime({ date, signed: claims.iat * 1000 })!);
 * if (lease.exp * 1000 <= clock.now()) expired();
 */
export function createTrustedClock(options: TrustedClockOptions): TrustedClock {
  const { now: local, toleranceMs } = options;
  const monotonic = options.monotonic ?? (() => globalThis.performance.now());
  let offsetMs = 0;
  let mark = 0;
  let anchored = false;
  const restartChargeMs = options.restartChargeMs ?? 0;
  /** This start's charge: how far the time a restart resumes at is ahead of its clocks. */
  let chargeMs = 0;
  /** The last trusted time judged on (running time). */
  let anchor: Anchor | undefined;
  /** The last services' time believed. */
  let signed: Anchor | undefined;

  const since = (from: Anchor | undefined) =>
    from === undefined ? Number.NEGATIVE_INFINITY : from.time + (monotonic() - from.at);
  const corrected = () => local() + offsetMs;
  /** The trusted time of the clocks, without the restart's charge. */
  const base = () => Math.max(corrected(), since(anchor), mark);
  const now = () => base() + chargeMs;
  /** Within the offset the SDK learns of the local clock. */
  const believable = (time: number) =>
    Number.isFinite(time) && Math.abs(time - local()) <= MAX_CLOCK_SKEW_MS;

  return {
    local,
    corrected,
    now,
    get offsetMs() {
      return offsetMs;
    },
    get mark() {
      return mark;
    },
    get anchored() {
      return anchored;
    },
    servicesTime({ date, signed: iat }) {
      if (iat === undefined) return date;
      return date !== undefined && Math.abs(date - iat) <= toleranceMs ? date : iat;
    },
    judgeAt(servicesTime) {
      if (servicesTime === undefined || Math.abs(servicesTime - corrected()) > MAX_CLOCK_SKEW_MS) {
        return now();
      }
      return Math.max(servicesTime, since(anchor));
    },
    observeSigned(servicesTime) {
      if (!believable(servicesTime) || servicesTime < since(signed) - toleranceMs) return false;
      const offset = servicesTime - local();
      if (Math.abs(offset - offsetMs) > OFFSET_RESOLUTION_MS) offsetMs = offset;
      const running = since(anchor);
      // The truth re-anchors the running time, even lower; jitter within the tolerance does not.
      const time =
        servicesTime < running - toleranceMs ? servicesTime : Math.max(servicesTime, running);
      anchor = { time, at: monotonic() };
      signed = { time: servicesTime, at: monotonic() };
      mark = servicesTime;
      chargeMs = 0;
      anchored = true;
      return true;
    },
    observeUnsigned(date) {
      if (!believable(date)) return;
      if (signed !== undefined && Math.abs(date - since(signed)) > toleranceMs) return;
      const offset = date - local();
      if (offset - offsetMs > OFFSET_RESOLUTION_MS) offsetMs = offset;
      if (date > mark) mark = date;
    },
    held(time) {
      // The restart's charge is lease time used up, not a time seen: it never becomes the
      // running time or the mark (a quick honest restart is no rollback).
      const at = time - chargeMs;
      if (!(at <= MAX_TIME_MS)) return;
      if (at > since(anchor)) anchor = { time: at, at: monotonic() };
      if (at > mark) mark = at;
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
      chargeMs = Math.max(0, Math.min(state.usedUntil - base(), MAX_CLOCK_SKEW_MS));
    },
    snapshot: () => ({
      timeMark: mark,
      offsetMs,
      usedUntil: Math.min(now() + restartChargeMs, MAX_TIME_MS),
    }),
  };
}
