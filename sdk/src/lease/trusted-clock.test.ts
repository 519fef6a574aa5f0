// The SDK's one clock (DECISIONS.md "Lease trust (third wave)": clock skew and clock rollback):
// the local clock corrected by the services' offset, and the time mark that only rises offline
// and re-anchors on the services' time online. Every reading comes from an injected clock.
import { describe, expect, it } from 'vitest';
import { isLicensingError } from '../errors.js';
import {
  createTrustedClock,
  MAX_CLOCK_SKEW_MS,
  MAX_TIME_MS,
  OFFSET_RESOLUTION_MS,
} from './trusted-clock.js';

const T0 = Date.UTC(2030, 0, 1);
const TOLERANCE = 60_000;

function clockAt(start = T0) {
  const local = { now: start };
  const clock = createTrustedClock({ now: () => local.now, toleranceMs: TOLERANCE });
  return { clock, local };
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

describe('createTrustedClock', () => {
  it('starts on the local clock, with no offset, no mark and not anchored', () => {
    const { clock, local } = clockAt();
    expect(clock.local()).toBe(T0);
    expect(clock.now()).toBe(T0);
    expect(clock.offsetMs).toBe(0);
    expect(clock.mark).toBe(0);
    expect(clock.anchored).toBe(false);
    expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0 });
    local.now = T0 + 5;
    expect(clock.local()).toBe(T0 + 5);
    expect(clock.now()).toBe(T0 + 5);
  });

  it('learns the services offset, either way, and corrects now() by it', () => {
    const { clock, local } = clockAt();
    expect(clock.observe(T0 + 3_600_000)).toBe(true);
    expect(clock.offsetMs).toBe(3_600_000);
    expect(clock.now()).toBe(T0 + 3_600_000);
    expect(clock.local()).toBe(T0);
    expect(clock.mark).toBe(T0 + 3_600_000);
    expect(clock.anchored).toBe(true);
    local.now = T0 + 1_000;
    expect(clock.now()).toBe(T0 + 3_601_000);

    expect(clock.observe(T0 - 7_200_000)).toBe(true);
    expect(clock.offsetMs).toBe(-7_201_000);
    expect(clock.now()).toBe(T0 - 7_200_000);
    expect(clock.snapshot()).toEqual({ timeMark: T0 - 7_200_000, offsetMs: -7_201_000 });
  });

  it('believes an offset of up to 24 hours either way, not more', () => {
    for (const offset of [MAX_CLOCK_SKEW_MS, -MAX_CLOCK_SKEW_MS]) {
      const { clock } = clockAt();
      expect(clock.observe(T0 + offset)).toBe(true);
      expect(clock.offsetMs).toBe(offset);
    }
    for (const offset of [MAX_CLOCK_SKEW_MS + 1, -MAX_CLOCK_SKEW_MS - 1]) {
      const { clock } = clockAt();
      expect(clock.observe(T0 + offset)).toBe(false);
      expect(clock.offsetMs).toBe(0);
      expect(clock.mark).toBe(0);
      expect(clock.anchored).toBe(false);
    }
  });

  it('refuses a services time that is not a finite number', () => {
    for (const time of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const { clock } = clockAt();
      expect(clock.observe(time)).toBe(false);
      expect(clock.snapshot()).toEqual({ timeMark: 0, offsetMs: 0 });
      expect(clock.anchored).toBe(false);
    }
  });

  it('keeps the offset it holds when a new estimate is within the resolution, but moves the mark', () => {
    const { clock } = clockAt();
    clock.observe(T0 + 10_000);
    expect(clock.offsetMs).toBe(10_000);
    // Within 2 s of the held offset either way: noise (Date and iat have whole seconds).
    clock.observe(T0 + 10_000 - OFFSET_RESOLUTION_MS);
    expect(clock.offsetMs).toBe(10_000);
    expect(clock.mark).toBe(T0 + 10_000 - OFFSET_RESOLUTION_MS);
    clock.observe(T0 + 9_000);
    expect(clock.offsetMs).toBe(10_000);
    clock.observe(T0 + 10_000 + OFFSET_RESOLUTION_MS);
    expect(clock.offsetMs).toBe(10_000);
    // Further: a new estimate.
    clock.observe(T0 + 10_000 + OFFSET_RESOLUTION_MS + 1);
    expect(clock.offsetMs).toBe(10_000 + OFFSET_RESOLUTION_MS + 1);
    clock.observe(T0 + 5_000);
    expect(clock.offsetMs).toBe(5_000);
  });

  it('re-anchors the mark on the services time online, even lower than it was', () => {
    const { clock } = clockAt();
    clock.raise(T0 + 7 * 3_600_000);
    clock.observe(T0 - 1_000);
    expect(clock.mark).toBe(T0 - 1_000);
    expect(() => clock.assertNotRolledBack()).not.toThrow();
  });

  describe('catchUp (an unverified answer, such as a JWK set)', () => {
    it('moves the offset forward only beyond the resolution, and raises the mark', () => {
      const { clock } = clockAt();
      clock.catchUp(T0 + OFFSET_RESOLUTION_MS);
      expect(clock.offsetMs).toBe(0);
      expect(clock.mark).toBe(T0 + OFFSET_RESOLUTION_MS);
      clock.catchUp(T0 + OFFSET_RESOLUTION_MS + 1);
      expect(clock.offsetMs).toBe(OFFSET_RESOLUTION_MS + 1);
      expect(clock.now()).toBe(T0 + OFFSET_RESOLUTION_MS + 1);
      expect(clock.mark).toBe(T0 + OFFSET_RESOLUTION_MS + 1);
      // Learnt from the offset held, not from zero: 1 s more is within the resolution.
      clock.catchUp(T0 + OFFSET_RESOLUTION_MS + 1_001);
      expect(clock.offsetMs).toBe(OFFSET_RESOLUTION_MS + 1);
      expect(clock.mark).toBe(T0 + OFFSET_RESOLUTION_MS + 1_001);
      expect(clock.anchored).toBe(false);
    });

    it('never moves the clock back nor lowers the mark', () => {
      const { clock, local } = clockAt();
      clock.raise(T0 + 3_600_000);
      clock.catchUp(T0 - 3_600_000);
      expect(clock.offsetMs).toBe(0);
      expect(clock.mark).toBe(T0 + 3_600_000);
      clock.observe(T0 + 10_000);
      expect(clock.offsetMs).toBe(10_000);
      local.now = T0 + 1_000;
      clock.catchUp(T0 + 1_000);
      expect(clock.offsetMs).toBe(10_000);
      expect(clock.mark).toBe(T0 + 10_000);
    });

    it('believes up to 24 hours ahead, not more, and nothing that is not a finite time', () => {
      const { clock } = clockAt();
      clock.catchUp(T0 + MAX_CLOCK_SKEW_MS + 1);
      expect(clock.offsetMs).toBe(0);
      expect(clock.mark).toBe(0);
      for (const time of [Number.NaN, Number.POSITIVE_INFINITY]) {
        clock.catchUp(time);
        expect(clock.offsetMs).toBe(0);
        expect(clock.mark).toBe(0);
      }
      clock.catchUp(T0 + MAX_CLOCK_SKEW_MS);
      expect(clock.offsetMs).toBe(MAX_CLOCK_SKEW_MS);
      expect(clock.mark).toBe(T0 + MAX_CLOCK_SKEW_MS);
    });
  });

  it('raises the mark to the corrected clock when a lease is accepted, never lowers it', () => {
    const { clock, local } = clockAt();
    clock.observe(T0 + 5_000);
    local.now = T0 + 1_000;
    clock.accepted();
    expect(clock.mark).toBe(T0 + 6_000);
    local.now = T0 - 50_000;
    clock.accepted();
    expect(clock.mark).toBe(T0 + 6_000);
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

  it('refuses a clock more than the tolerance behind the mark, with CLOCK_ROLLBACK', () => {
    const { clock, local } = clockAt();
    clock.raise(T0 + 7 * 3_600_000);
    local.now = T0 + 7 * 3_600_000 - TOLERANCE;
    expect(() => clock.assertNotRolledBack()).not.toThrow();
    local.now = T0 + 7 * 3_600_000 - TOLERANCE - 1;
    const error = rollbackOf(() => clock.assertNotRolledBack());
    expect(error.code).toBe('CLOCK_ROLLBACK');
    expect(error.message).toContain(new Date(local.now).toISOString());
    expect(error.message).toContain(new Date(T0 + 7 * 3_600_000).toISOString());
    expect(error.message).toMatch(/set back/);
    local.now = T0 + 8 * 3_600_000;
    expect(() => clock.assertNotRolledBack()).not.toThrow();
  });

  it('judges a rollback on the corrected clock: a slow clock with a known offset is no rollback', () => {
    const { clock, local } = clockAt();
    clock.observe(T0 + 2 * 3_600_000);
    local.now = T0 + 60_000;
    clock.accepted();
    expect(clock.mark).toBe(T0 + 2 * 3_600_000 + 60_000);
    expect(() => clock.assertNotRolledBack()).not.toThrow();
    local.now = T0 - 2 * TOLERANCE;
    expect(rollbackOf(() => clock.assertNotRolledBack()).code).toBe('CLOCK_ROLLBACK');
  });

  it('takes the state a store kept and gives it back', () => {
    const { clock } = clockAt();
    clock.restore({ timeMark: T0 + 10, offsetMs: -3_000 });
    expect(clock.mark).toBe(T0 + 10);
    expect(clock.offsetMs).toBe(-3_000);
    expect(clock.now()).toBe(T0 - 3_000);
    expect(clock.anchored).toBe(false);
    expect(clock.snapshot()).toEqual({ timeMark: T0 + 10, offsetMs: -3_000 });
  });
});
