// The SDK's one clock (DECISIONS.md "Lease trust (third wave)": clock skew and rollback; "Trust
// while the app runs (fourth wave)": a running client's time never goes back, the services' time is
// the signed one): the local clock corrected by the learnt offset, the running time (last time
// judged on plus the monotonic time since) and the time mark. Every reading comes from an injected
// local clock and an injected monotonic clock.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isLicensingError } from '../errors.js';
import {
  createTrustedClock,
  MAX_CLOCK_SKEW_MS,
  MAX_TIME_MS,
  OFFSET_RESOLUTION_MS,
} from './trusted-clock.js';

const T0 = Date.UTC(2030, 0, 1);
const TOLERANCE = 60_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** A clock on a local clock and a monotonic clock the test moves. */
function clockAt(start = T0) {
  const local = { now: start };
  const mono = { now: 1_000 };
  const clock = createTrustedClock({
    now: () => local.now,
    monotonic: () => mono.now,
    toleranceMs: TOLERANCE,
  });
  return { clock, local, mono };
}

function rollbackOf(assert: () => void) {
  try {
    assert();
  } catch (error) {
    expect(isLicensingError(error)).toBe(true);
    return error as Error & { code: string };
  }
  throw new Error('expected CLOCK_ROLLBACK');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createTrustedClock', () => {
  it('starts on the local clock, with no offset, no mark, no running time and not anchored', () => {
    const { clock, local, mono } = clockAt();
    expect(clock.local()).toBe(T0);
    expect(clock.corrected()).toBe(T0);
    expect(clock.now()).toBe(T0);
    expect(clock.offsetMs).toBe(0);
    expect(clock.mark).toBe(0);
    expect(clock.anchored).toBe(false);
    expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0, usedUntil: T0 });
    // Before anything was judged, the trusted time is the local clock, either way.
    local.now = T0 - HOUR;
    mono.now += 5_000;
    expect(clock.local()).toBe(T0 - HOUR);
    expect(clock.now()).toBe(T0 - HOUR);
  });

  describe('now(): the largest of the corrected clock, the running time and the mark', () => {
    it('reads the corrected clock when it is the largest', () => {
      const { clock, local, mono } = clockAt();
      clock.observeSigned(T0 + HOUR);
      expect(clock.corrected()).toBe(T0 + HOUR);
      local.now = T0 + 10_000;
      mono.now += 1_000;
      expect(clock.corrected()).toBe(T0 + HOUR + 10_000);
      expect(clock.now()).toBe(T0 + HOUR + 10_000);
      expect(clock.local()).toBe(T0 + 10_000);
    });

    it('reads the running time when the local clock was set back while running', () => {
      const { clock, local, mono } = clockAt();
      clock.held(T0 + 10_000);
      local.now = T0 - 2 * HOUR;
      mono.now += 5_000;
      expect(clock.corrected()).toBe(T0 - 2 * HOUR);
      expect(clock.mark).toBe(T0 + 10_000);
      expect(clock.now()).toBe(T0 + 15_000);
    });

    it('reads the mark when it is ahead of both', () => {
      const { clock } = clockAt();
      clock.restore({ timeMark: T0 + HOUR, offsetMs: -MINUTE, usedUntil: 0 });
      expect(clock.corrected()).toBe(T0 - MINUTE);
      expect(clock.now()).toBe(T0 + HOUR);
    });

    it('counts the running time on performance.now() by default', () => {
      const performanceNow = vi.spyOn(globalThis.performance, 'now').mockReturnValue(500);
      const clock = createTrustedClock({ now: () => T0 - HOUR, toleranceMs: TOLERANCE });
      clock.held(T0);
      performanceNow.mockReturnValue(2_500);
      expect(clock.now()).toBe(T0 + 2_000);
    });

    /** Any move of the local clock, the monotonic clock, or a call that may raise the clock. */
    const step = fc.oneof(
      fc.record({ local: fc.integer({ min: -30 * HOUR, max: 30 * HOUR }) }),
      fc.record({ elapse: fc.integer({ min: 0, max: HOUR }) }),
      fc.record({ held: fc.integer({ min: -30 * HOUR, max: 30 * HOUR }) }),
      fc.record({ raise: fc.integer({ min: -30 * HOUR, max: 30 * HOUR }) }),
      fc.record({ unsigned: fc.integer({ min: -30 * HOUR, max: 30 * HOUR }) }),
    );
    type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

    function run(steps: Step[], each: (clock: ReturnType<typeof clockAt>) => void) {
      const running = clockAt();
      const { clock, local, mono } = running;
      for (const s of steps) {
        if ('local' in s) local.now = T0 + s.local;
        else if ('elapse' in s) mono.now += s.elapse;
        else if ('held' in s) clock.held(T0 + s.held);
        else if ('raise' in s) clock.raise(T0 + s.raise);
        else clock.observeUnsigned(T0 + s.unsigned);
        each(running);
      }
    }

    it('never goes back while every reading is held (a valid lease), whatever the local clock does', () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
          let last = Number.NEGATIVE_INFINITY;
          run(steps, ({ clock }) => {
            const now = clock.now();
            expect(now).toBeGreaterThanOrEqual(last);
            clock.held(now);
            last = now;
          });
        }),
      );
    });

    it('never reads earlier than a time held plus the monotonic time since', () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
          const { clock, local, mono } = clockAt();
          let floor = { time: Number.NEGATIVE_INFINITY, at: 0 };
          for (const s of steps) {
            if ('local' in s) local.now = T0 + s.local;
            else if ('elapse' in s) mono.now += s.elapse;
            else if ('raise' in s) clock.raise(T0 + s.raise);
            else if ('unsigned' in s) clock.observeUnsigned(T0 + s.unsigned);
            else {
              clock.held(T0 + s.held);
              const since = floor.time + (mono.now - floor.at);
              if (T0 + s.held > since) floor = { time: T0 + s.held, at: mono.now };
            }
            expect(clock.now()).toBeGreaterThanOrEqual(floor.time + (mono.now - floor.at));
          }
        }),
      );
    });

    // Found while writing these tests (see the report of the trust-tests branch): a reading that
    // no held() follows does not move the running time, so a local clock that jumped ahead and
    // came back moves now() back with it, and has() can turn true again for a lease it called
    // expired during the jump (until the 60 s status tick drops it).
    it.todo('never goes back between readings, without held(): a jump ahead then back');
  });

  describe('servicesTime: the signed iat where the Date disagrees', () => {
    it('is undefined when the answer says no time, else what it says', () => {
      const { clock } = clockAt();
      expect(clock.servicesTime({})).toBeUndefined();
      expect(clock.servicesTime({ date: T0 })).toBe(T0);
      expect(clock.servicesTime({ signed: T0 + 5 })).toBe(T0 + 5);
    });

    it('takes the Date within the tolerance of the iat, either side, and the iat beyond', () => {
      const { clock } = clockAt();
      const signed = T0 + 10 * HOUR;
      expect(clock.servicesTime({ date: signed + TOLERANCE, signed })).toBe(signed + TOLERANCE);
      expect(clock.servicesTime({ date: signed - TOLERANCE, signed })).toBe(signed - TOLERANCE);
      expect(clock.servicesTime({ date: signed + TOLERANCE + 1, signed })).toBe(signed);
      expect(clock.servicesTime({ date: signed - TOLERANCE - 1, signed })).toBe(signed);
      // A proxy at 1970 or hours off: the iat.
      expect(clock.servicesTime({ date: 0, signed })).toBe(signed);
      expect(clock.servicesTime({ date: signed - 9 * HOUR, signed })).toBe(signed);
    });

    it('is always the iat or a Date within the tolerance of it', () => {
      const { clock } = clockAt();
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 2 * T0 }),
          fc.integer({ min: 0, max: 2 * T0 }),
          (date, signed) => {
            const time = clock.servicesTime({ date, signed });
            expect(time === signed || (time === date && Math.abs(date - signed) <= TOLERANCE)).toBe(
              true,
            );
          },
        ),
      );
    });
  });

  describe('judgeAt: the time to judge a fresh answer at', () => {
    it('is the services time when there is no running time', () => {
      const { clock } = clockAt();
      expect(clock.judgeAt(T0 - 5 * MINUTE)).toBe(T0 - 5 * MINUTE);
      expect(clock.judgeAt(T0 + 5 * MINUTE)).toBe(T0 + 5 * MINUTE);
    });

    it('is never earlier than the running time: a replayed old answer is judged as old', () => {
      const { clock, mono } = clockAt();
      clock.held(T0 + HOUR);
      mono.now += 1_000;
      expect(clock.judgeAt(T0)).toBe(T0 + HOUR + 1_000);
      expect(clock.judgeAt(T0 + 2 * HOUR)).toBe(T0 + 2 * HOUR);
    });

    it('is now() when the answer says no time or one more than 24 h off the corrected clock', () => {
      const { clock, local } = clockAt();
      clock.raise(T0 + 2 * HOUR);
      expect(clock.now()).toBe(T0 + 2 * HOUR);
      expect(clock.judgeAt(undefined)).toBe(T0 + 2 * HOUR);
      expect(clock.judgeAt(T0 + MAX_CLOCK_SKEW_MS + 1)).toBe(T0 + 2 * HOUR);
      expect(clock.judgeAt(T0 - MAX_CLOCK_SKEW_MS - 1)).toBe(T0 + 2 * HOUR);
      // Exactly 24 h is believed, either side (the mark does not cap a believed answer).
      expect(clock.judgeAt(T0 + MAX_CLOCK_SKEW_MS)).toBe(T0 + MAX_CLOCK_SKEW_MS);
      expect(clock.judgeAt(T0 - MAX_CLOCK_SKEW_MS)).toBe(T0 - MAX_CLOCK_SKEW_MS);
      // Measured from the corrected clock, not the local one.
      local.now = T0 - HOUR;
      clock.observeSigned(T0 + 19 * HOUR);
      expect(clock.corrected()).toBe(T0 + 19 * HOUR);
      expect(clock.judgeAt(T0 + 19 * HOUR + MAX_CLOCK_SKEW_MS)).toBe(
        T0 + 19 * HOUR + MAX_CLOCK_SKEW_MS,
      );
      expect(clock.judgeAt(T0 + 19 * HOUR - MAX_CLOCK_SKEW_MS - 1)).toBe(T0 + 19 * HOUR);
    });

    it('is never earlier than a time held, whatever the answer says', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: -48 * HOUR, max: 48 * HOUR }),
          fc.option(fc.integer({ min: -48 * HOUR, max: 48 * HOUR }), { nil: undefined }),
          fc.integer({ min: -48 * HOUR, max: 48 * HOUR }),
          (held, answer, localMove) => {
            const { clock, local } = clockAt();
            clock.held(T0 + held);
            local.now = T0 + localMove;
            const at = clock.judgeAt(answer === undefined ? undefined : T0 + answer);
            expect(at).toBeGreaterThanOrEqual(T0 + held);
          },
        ),
      );
    });
  });

  describe('observeSigned: a verified answer shows the services time', () => {
    it('learns the offset, either way, sets the mark to it and anchors', () => {
      const { clock, local, mono } = clockAt();
      expect(clock.observeSigned(T0 + HOUR)).toBe(true);
      expect(clock.offsetMs).toBe(HOUR);
      expect(clock.now()).toBe(T0 + HOUR);
      expect(clock.local()).toBe(T0);
      expect(clock.mark).toBe(T0 + HOUR);
      expect(clock.anchored).toBe(true);
      local.now = T0 + 1_000;
      mono.now += 1_000;
      expect(clock.now()).toBe(T0 + HOUR + 1_000);

      // The services' clock behind.
      const behind = clockAt().clock;
      expect(behind.observeSigned(T0 - 2 * HOUR)).toBe(true);
      expect(behind.offsetMs).toBe(-2 * HOUR);
      expect(behind.now()).toBe(T0 - 2 * HOUR);
      expect(behind.snapshot()).toEqual({
        timeMark: T0 - 2 * HOUR,
        offsetMs: -2 * HOUR,
        usedUntil: T0 - 2 * HOUR,
      });
    });

    it('believes a services time up to 24 hours off the local clock either way, not more', () => {
      for (const offset of [MAX_CLOCK_SKEW_MS, -MAX_CLOCK_SKEW_MS]) {
        const { clock } = clockAt();
        expect(clock.observeSigned(T0 + offset)).toBe(true);
        expect(clock.offsetMs).toBe(offset);
      }
      for (const offset of [MAX_CLOCK_SKEW_MS + 1, -MAX_CLOCK_SKEW_MS - 1]) {
        const { clock } = clockAt();
        clock.held(T0);
        expect(clock.observeSigned(T0 + offset)).toBe(false);
        expect(clock.snapshot()).toEqual({ timeMark: T0, offsetMs: 0, usedUntil: T0 });
        expect(clock.anchored).toBe(false);
        expect(clock.now()).toBe(T0);
      }
    });

    it('keeps the offset within 24 h of the local clock whatever the answers', () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              local: fc.integer({ min: -10 * HOUR, max: 10 * HOUR }),
              time: fc.integer({ min: -60 * HOUR, max: 60 * HOUR }),
              signed: fc.boolean(),
            }),
            { maxLength: 20 },
          ),
          (answers) => {
            const { clock, local } = clockAt();
            for (const answer of answers) {
              local.now = T0 + answer.local;
              if (answer.signed) clock.observeSigned(T0 + answer.time);
              else clock.observeUnsigned(T0 + answer.time);
              expect(Math.abs(clock.corrected() - clock.local())).toBeLessThanOrEqual(
                MAX_CLOCK_SKEW_MS,
              );
            }
          },
        ),
      );
    });

    it('refuses a services time that is not a finite number', () => {
      for (const time of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        const { clock } = clockAt();
        expect(clock.observeSigned(time)).toBe(false);
        expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0, usedUntil: T0 });
        expect(clock.anchored).toBe(false);
      }
    });

    it('keeps the offset it holds when a new estimate is within the resolution, but moves the mark', () => {
      const { clock, mono } = clockAt();
      clock.observeSigned(T0 + 10_000);
      expect(clock.offsetMs).toBe(10_000);
      // Within 2 s of the held offset either way: noise (Date and iat have whole seconds).
      clock.observeSigned(T0 + 10_000 - OFFSET_RESOLUTION_MS);
      expect(clock.offsetMs).toBe(10_000);
      expect(clock.mark).toBe(T0 + 10_000 - OFFSET_RESOLUTION_MS);
      clock.observeSigned(T0 + 10_000 + OFFSET_RESOLUTION_MS);
      expect(clock.offsetMs).toBe(10_000);
      expect(clock.mark).toBe(T0 + 10_000 + OFFSET_RESOLUTION_MS);
      // Further: a new estimate, either way.
      clock.observeSigned(T0 + 10_000 + OFFSET_RESOLUTION_MS + 1);
      expect(clock.offsetMs).toBe(10_000 + OFFSET_RESOLUTION_MS + 1);
      mono.now += 10_000;
      clock.observeSigned(T0 + 9_999);
      expect(clock.offsetMs).toBe(9_999);
    });

    it('does not believe a replay older than the last signed time plus the monotonic time since', () => {
      const { clock, local, mono } = clockAt();
      clock.observeSigned(T0);
      mono.now += 10 * MINUTE;
      local.now = T0 - HOUR;
      expect(clock.observeSigned(T0 + 10 * MINUTE - TOLERANCE - 1)).toBe(false);
      expect(clock.snapshot()).toEqual({ timeMark: T0, offsetMs: 0, usedUntil: T0 + 10 * MINUTE });
      expect(clock.now()).toBe(T0 + 10 * MINUTE);
      // Within the tolerance of it: believed.
      expect(clock.observeSigned(T0 + 10 * MINUTE - TOLERANCE)).toBe(true);
      expect(clock.mark).toBe(T0 + 10 * MINUTE - TOLERANCE);
      expect(clock.offsetMs).toBe(HOUR + 10 * MINUTE - TOLERANCE);
      // A later answer always is.
      mono.now += MINUTE;
      expect(clock.observeSigned(T0 + 20 * MINUTE)).toBe(true);
    });

    it('re-anchors the running time and the mark on the services time, even lower, beyond the tolerance', () => {
      const { clock, mono } = clockAt();
      // A clock that ran seven hours ahead and was corrected: the truth locks nobody out.
      clock.held(T0 + 7 * HOUR);
      clock.raise(T0 + 7 * HOUR + 5);
      expect(clock.observeSigned(T0 - 5 * MINUTE)).toBe(true);
      expect(clock.mark).toBe(T0 - 5 * MINUTE);
      expect(clock.now()).toBe(T0 - 5 * MINUTE);
      expect(() => clock.assertNotRolledBack()).not.toThrow();
      mono.now += 1_000;
      expect(clock.now()).toBe(T0 - 5 * MINUTE + 1_000);
    });

    it('keeps the running time when the services time is within the tolerance below it', () => {
      const { clock, local, mono } = clockAt();
      clock.held(T0 + TOLERANCE);
      expect(clock.observeSigned(T0)).toBe(true);
      expect(clock.mark).toBe(T0);
      expect(clock.now()).toBe(T0 + TOLERANCE);
      local.now = T0 - HOUR;
      mono.now += 1_000;
      expect(clock.now()).toBe(T0 + TOLERANCE + 1_000);
      // One ms beyond the tolerance re-anchors.
      const other = clockAt();
      other.clock.held(T0 + TOLERANCE + 1);
      other.clock.observeSigned(T0);
      expect(other.clock.now()).toBe(T0);
    });

    it('moves the running time up to a later services time', () => {
      const { clock, local, mono } = clockAt();
      clock.held(T0);
      clock.observeSigned(T0 + 5 * MINUTE);
      local.now = T0 - HOUR;
      mono.now += 1_000;
      expect(clock.now()).toBe(T0 + 5 * MINUTE + 1_000);
    });
  });

  describe('observeUnsigned: a Date that proves nothing by itself', () => {
    it('before any signed time, moves the offset forward only beyond the resolution, and raises the mark', () => {
      const { clock } = clockAt();
      clock.observeUnsigned(T0 + OFFSET_RESOLUTION_MS);
      expect(clock.offsetMs).toBe(0);
      expect(clock.mark).toBe(T0 + OFFSET_RESOLUTION_MS);
      clock.observeUnsigned(T0 + OFFSET_RESOLUTION_MS + 1);
      expect(clock.offsetMs).toBe(OFFSET_RESOLUTION_MS + 1);
      expect(clock.now()).toBe(T0 + OFFSET_RESOLUTION_MS + 1);
      expect(clock.mark).toBe(T0 + OFFSET_RESOLUTION_MS + 1);
      // Learnt from the offset held, not from zero: 1 s more is within the resolution.
      clock.observeUnsigned(T0 + OFFSET_RESOLUTION_MS + 1_001);
      expect(clock.offsetMs).toBe(OFFSET_RESOLUTION_MS + 1);
      expect(clock.mark).toBe(T0 + OFFSET_RESOLUTION_MS + 1_001);
      expect(clock.anchored).toBe(false);
    });

    it('never moves the clock back nor lowers the mark', () => {
      const { clock } = clockAt();
      clock.raise(T0 + HOUR);
      clock.observeUnsigned(T0 - HOUR);
      expect(clock.offsetMs).toBe(0);
      expect(clock.mark).toBe(T0 + HOUR);
      expect(clock.now()).toBe(T0 + HOUR);
    });

    it('believes up to 24 hours off the local clock, not more, and nothing that is not a finite time', () => {
      const { clock } = clockAt();
      for (const time of [
        T0 + MAX_CLOCK_SKEW_MS + 1,
        T0 - MAX_CLOCK_SKEW_MS - 1,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
      ]) {
        clock.observeUnsigned(time);
        expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0, usedUntil: T0 });
      }
      clock.observeUnsigned(T0 - MAX_CLOCK_SKEW_MS);
      expect(clock.mark).toBe(T0 - MAX_CLOCK_SKEW_MS);
      clock.observeUnsigned(T0 + MAX_CLOCK_SKEW_MS);
      expect(clock.offsetMs).toBe(MAX_CLOCK_SKEW_MS);
      expect(clock.mark).toBe(T0 + MAX_CLOCK_SKEW_MS);
    });

    it('after a signed time, is believed only within the tolerance of it plus the monotonic time since', () => {
      const { clock, mono } = clockAt();
      clock.observeSigned(T0);
      mono.now += 10 * MINUTE;
      const expected = T0 + 10 * MINUTE;
      // Ahead or behind by more than the tolerance: a proxy's clock, ignored.
      const untouched = { timeMark: T0, offsetMs: 0, usedUntil: expected };
      clock.observeUnsigned(expected + TOLERANCE + 1);
      expect(clock.snapshot()).toEqual(untouched);
      clock.observeUnsigned(expected - TOLERANCE - 1);
      expect(clock.snapshot()).toEqual(untouched);
      // Within it: forward only.
      clock.observeUnsigned(expected + TOLERANCE);
      expect(clock.offsetMs).toBe(TOLERANCE + 10 * MINUTE);
      expect(clock.mark).toBe(expected + TOLERANCE);
      clock.observeUnsigned(expected - TOLERANCE);
      expect(clock.offsetMs).toBe(TOLERANCE + 10 * MINUTE);
      expect(clock.mark).toBe(expected + TOLERANCE);
      expect(clock.anchored).toBe(true);
    });

    it('moves no running time: only the offset and the mark', () => {
      const { clock, local, mono } = clockAt();
      clock.observeUnsigned(T0 + HOUR);
      local.now = T0 - HOUR;
      mono.now += 10_000;
      // The offset carries the clock; the mark holds it; nothing runs on from the Date.
      expect(clock.now()).toBe(T0 + HOUR);
      expect(clock.judgeAt(T0 - 30 * MINUTE)).toBe(T0 - 30 * MINUTE);
    });
  });

  describe('held: a lease was found valid at a time', () => {
    it('raises the running time and the mark to it, never lowers them', () => {
      const { clock, local, mono } = clockAt();
      clock.held(T0 + 10_000);
      expect(clock.mark).toBe(T0 + 10_000);
      mono.now += 5_000;
      local.now = T0 - HOUR;
      // Lower than the running time (T0 + 15 s): no change.
      clock.held(T0 + 12_000);
      expect(clock.now()).toBe(T0 + 15_000);
      expect(clock.mark).toBe(T0 + 12_000);
      clock.held(T0);
      expect(clock.mark).toBe(T0 + 12_000);
      expect(clock.now()).toBe(T0 + 15_000);
      // Higher: both follow.
      clock.held(T0 + 20_000);
      expect(clock.now()).toBe(T0 + 20_000);
      expect(clock.mark).toBe(T0 + 20_000);
      mono.now += 1;
      expect(clock.now()).toBe(T0 + 20_001);
    });

    it('takes only a time a Date can hold', () => {
      const { clock } = clockAt();
      for (const time of [MAX_TIME_MS + 1, Number.POSITIVE_INFINITY, Number.NaN]) {
        clock.held(time);
        expect(clock.mark).toBe(0);
        expect(clock.now()).toBe(T0);
      }
      clock.held(MAX_TIME_MS);
      expect(clock.mark).toBe(MAX_TIME_MS);
      expect(clock.now()).toBe(MAX_TIME_MS);
    });
  });

  it('raises the mark only upwards and only to a time a Date can hold', () => {
    const { clock } = clockAt();
    clock.raise(T0);
    expect(clock.mark).toBe(T0);
    clock.raise(T0 - 1);
    expect(clock.mark).toBe(T0);
    clock.raise(T0 + 1);
    expect(clock.mark).toBe(T0 + 1);
    clock.raise(MAX_TIME_MS + 1);
    expect(clock.mark).toBe(T0 + 1);
    clock.raise(Number.POSITIVE_INFINITY);
    expect(clock.mark).toBe(T0 + 1);
    clock.raise(Number.NaN);
    expect(clock.mark).toBe(T0 + 1);
    clock.raise(MAX_TIME_MS);
    expect(clock.mark).toBe(MAX_TIME_MS);
  });

  describe('assertNotRolledBack', () => {
    it('refuses a clock more than the tolerance behind the mark, with CLOCK_ROLLBACK', () => {
      const { clock, local } = clockAt();
      clock.raise(T0 + 7 * HOUR);
      local.now = T0 + 7 * HOUR - TOLERANCE;
      expect(() => clock.assertNotRolledBack()).not.toThrow();
      local.now = T0 + 7 * HOUR - TOLERANCE - 1;
      const error = rollbackOf(() => clock.assertNotRolledBack());
      expect(error.code).toBe('CLOCK_ROLLBACK');
      expect(error.message).toBe(
        `The clock reads ${new Date(local.now).toISOString()}, earlier than ${new Date(T0 + 7 * HOUR).toISOString()}, when a lease was already accepted: the clock was set back. Set the system clock to the correct time, or let the app reach the licensing service once.`,
      );
      local.now = T0 + 8 * HOUR;
      expect(() => clock.assertNotRolledBack()).not.toThrow();
    });

    it('judges on the corrected clock, not on the running time', () => {
      const { clock, local } = clockAt();
      clock.observeSigned(T0 + 2 * HOUR);
      local.now = T0 + MINUTE;
      clock.held(clock.now());
      expect(clock.mark).toBe(T0 + 2 * HOUR + MINUTE);
      // A slow clock with a known offset is no rollback.
      expect(() => clock.assertNotRolledBack()).not.toThrow();
      // Set back: the running time is still ahead, but the corrected clock tells.
      local.now = T0 - 2 * TOLERANCE;
      expect(clock.now()).toBeGreaterThanOrEqual(T0 + 2 * HOUR + MINUTE);
      expect(rollbackOf(() => clock.assertNotRolledBack()).code).toBe('CLOCK_ROLLBACK');
    });
  });

  it('takes the state a store kept and gives it back', () => {
    const { clock } = clockAt();
    clock.restore({ timeMark: T0 + 10, offsetMs: -3_000, usedUntil: T0 - HOUR });
    expect(clock.mark).toBe(T0 + 10);
    expect(clock.offsetMs).toBe(-3_000);
    expect(clock.corrected()).toBe(T0 - 3_000);
    // A usedUntil behind where the clocks read charges nothing.
    expect(clock.now()).toBe(T0 + 10);
    expect(clock.anchored).toBe(false);
    expect(clock.snapshot()).toEqual({ timeMark: T0 + 10, offsetMs: -3_000, usedUntil: T0 + 10 });
    // A restore may lower the mark (the store's state replaces the clock's).
    clock.restore({ timeMark: T0 - HOUR, offsetMs: 0, usedUntil: 0 });
    expect(clock.snapshot()).toEqual({ timeMark: T0 - HOUR, offsetMs: 0, usedUntil: T0 });
  });

  describe('the restart charge: usedUntil', () => {
    /** A clock with a restart charge, on clocks the test moves. */
    function chargedAt(restartChargeMs: number) {
      const local = { now: T0 };
      const mono = { now: 1_000 };
      const clock = createTrustedClock({
        now: () => local.now,
        monotonic: () => mono.now,
        toleranceMs: TOLERANCE,
        restartChargeMs,
      });
      return { clock, local, mono };
    }

    it('saves usedUntil ahead of now() by restartChargeMs, never past a time a Date can hold', () => {
      const { clock, local } = chargedAt(MINUTE);
      expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0, usedUntil: T0 + MINUTE });
      clock.held(T0 + HOUR);
      expect(clock.snapshot().usedUntil).toBe(T0 + HOUR + MINUTE);
      // The charge it saves ahead is not a time seen: now() and the mark stay.
      expect(clock.now()).toBe(T0 + HOUR);
      expect(clock.mark).toBe(T0 + HOUR);
      local.now = MAX_TIME_MS - 1;
      expect(clock.snapshot().usedUntil).toBe(MAX_TIME_MS);
    });

    it('resumes a restart at the usedUntil the app before it saved, even with the clock set back', () => {
      const { clock, local, mono } = chargedAt(MINUTE);
      local.now = T0 - HOUR;
      clock.restore({ timeMark: T0 - 2 * HOUR, offsetMs: 0, usedUntil: T0 + 5 * MINUTE });
      expect(clock.corrected()).toBe(T0 - HOUR);
      expect(clock.now()).toBe(T0 + 5 * MINUTE);
      // The charge moves with the clocks: the time passing counts on top of it.
      mono.now += 10_000;
      local.now += 10_000;
      expect(clock.now()).toBe(T0 + 5 * MINUTE + 10_000);
      // And is saved again, ahead by the charge.
      expect(clock.snapshot().usedUntil).toBe(T0 + 5 * MINUTE + 10_000 + MINUTE);
    });

    it('charges at most 24 hours, and never a negative time', () => {
      const far = chargedAt(0).clock;
      far.restore({ timeMark: 0, offsetMs: 0, usedUntil: T0 + 3 * MAX_CLOCK_SKEW_MS });
      expect(far.now()).toBe(T0 + MAX_CLOCK_SKEW_MS);
      const behind = chargedAt(0).clock;
      behind.restore({ timeMark: 0, offsetMs: 0, usedUntil: T0 - HOUR });
      expect(behind.now()).toBe(T0);
    });

    it('held(time) raises the running time and the mark to time less the charge', () => {
      const { clock, local, mono } = chargedAt(MINUTE);
      clock.restore({ timeMark: 0, offsetMs: 0, usedUntil: T0 + 5 * MINUTE });
      const judged = clock.now();
      expect(judged).toBe(T0 + 5 * MINUTE);
      clock.held(judged);
      // The mark is where the clocks read, not the charged time: a quick restart is no rollback.
      expect(clock.mark).toBe(T0);
      expect(() => clock.assertNotRolledBack()).not.toThrow();
      expect(clock.now()).toBe(T0 + 5 * MINUTE);
      // The running time holds the uncharged time: set back, now() still counts on from it.
      local.now = T0 - HOUR;
      mono.now += 1_000;
      expect(clock.now()).toBe(T0 + 5 * MINUTE + 1_000);
      clock.held(clock.now());
      expect(clock.mark).toBe(T0 + 1_000);
    });

    it('a believed services time ends the charge', () => {
      const { clock } = chargedAt(MINUTE);
      clock.restore({ timeMark: 0, offsetMs: 0, usedUntil: T0 + 5 * MINUTE });
      expect(clock.now()).toBe(T0 + 5 * MINUTE);
      expect(clock.observeSigned(T0 + 1_000)).toBe(true);
      expect(clock.now()).toBe(T0 + 1_000);
      expect(clock.snapshot().usedUntil).toBe(T0 + 1_000 + MINUTE);
      // One not believed leaves it.
      const other = chargedAt(MINUTE).clock;
      other.restore({ timeMark: 0, offsetMs: 0, usedUntil: T0 + 5 * MINUTE });
      expect(other.observeSigned(T0 + MAX_CLOCK_SKEW_MS + 1)).toBe(false);
      expect(other.now()).toBe(T0 + 5 * MINUTE);
    });
  });
});
