// The time mark follows use (DECISIONS.md "Trust while the app runs (fourth wave)"): a held lease
// found valid raises the clock to that time, and a mark more than a minute past the saved one is
// saved at once, one save at a time; close() saves what moved. On a real clock and a lease state
// whose saves the test finishes.
import { describe, expect, it, vi } from 'vitest';
import type { LeaseState } from '../lease/lease-state.js';
import { createTrustedClock } from '../lease/trusted-clock.js';
import { createUseMark, MARK_INTERVAL_MS } from './use-mark.js';

const T0 = Date.UTC(2030, 0, 1);

/** A clock, and a lease state whose saves wait for `finish()` and then save the clock's mark. */
function setup(
  savedMark = T0,
  clock = createTrustedClock({ now: () => T0, monotonic: () => 0, toleranceMs: 60_000 }),
) {
  const saves: Array<() => void> = [];
  const store = { mark: savedMark };
  const persist = vi.fn(
    () =>
      new Promise<void>((resolve) => {
        const mark = clock.mark;
        saves.push(() => {
          store.mark = mark;
          resolve();
        });
      }),
  );
  const state = { persist, savedMark: () => store.mark } as unknown as LeaseState;
  const mark = createUseMark({ clock, state });
  /** Finishes the oldest save still running. */
  const finish = async () => {
    saves.shift()!();
    await Promise.resolve();
  };
  return { clock, mark, persist, store, finish };
}

describe('createUseMark', () => {
  it('saves every minute of use: a minute past the saved mark is not enough, a ms more is', () => {
    expect(MARK_INTERVAL_MS).toBe(60_000);
    const { clock, mark, persist } = setup();
    expect(mark.used(T0 + MARK_INTERVAL_MS)).toBeUndefined();
    expect(persist).not.toHaveBeenCalled();
    // The clock holds the time all the same.
    expect(clock.mark).toBe(T0 + MARK_INTERVAL_MS);
    expect(clock.now()).toBe(T0 + MARK_INTERVAL_MS);
    const saving = mark.used(T0 + MARK_INTERVAL_MS + 1);
    expect(saving).toBeInstanceOf(Promise);
    expect(persist).toHaveBeenCalledTimes(1);
    expect(clock.mark).toBe(T0 + MARK_INTERVAL_MS + 1);
  });

  it('holds the time on the clock before it saves, so the save writes it', async () => {
    const { mark, store, finish } = setup();
    const saving = mark.used(T0 + 2 * MARK_INTERVAL_MS);
    await finish();
    await expect(saving).resolves.toBeUndefined();
    expect(store.mark).toBe(T0 + 2 * MARK_INTERVAL_MS);
  });

  it('starts one save at a time: uses while one runs only hold their time', async () => {
    const { clock, mark, persist, finish } = setup();
    const first = mark.used(T0 + 2 * MARK_INTERVAL_MS);
    expect(mark.used(T0 + 4 * MARK_INTERVAL_MS)).toBeUndefined();
    expect(persist).toHaveBeenCalledTimes(1);
    expect(clock.mark).toBe(T0 + 4 * MARK_INTERVAL_MS);
    await finish();
    await first;
    // Settled: the saved mark is two minutes, the clock's four: the next use saves again.
    const second = mark.used(T0 + 4 * MARK_INTERVAL_MS);
    expect(second).toBeInstanceOf(Promise);
    expect(persist).toHaveBeenCalledTimes(2);
    await finish();
    await second;
  });

  it("decides on the clock's mark, not the charged time: a restart's charge alone never saves", async () => {
    // A restart resumed five minutes ahead of its clocks (usedUntil): the charge is lease time used
    // up, not a time seen, so it never reaches the mark, and judging at the charged time does not
    // start a save after every save.
    const mono = { now: 0 };
    const clock = createTrustedClock({
      now: () => T0,
      monotonic: () => mono.now,
      toleranceMs: 60_000,
      restartChargeMs: MARK_INTERVAL_MS,
    });
    clock.restore({ timeMark: T0, offsetMs: 0, usedUntil: T0 + 5 * MARK_INTERVAL_MS });
    const { mark, persist, store, finish } = setup(T0, clock);
    for (let i = 0; i < 5; i++) {
      expect(clock.now()).toBe(T0 + 5 * MARK_INTERVAL_MS + i);
      expect(mark.used(clock.now())).toBeUndefined();
      mono.now += 1;
    }
    expect(persist).not.toHaveBeenCalled();
    expect(clock.mark).toBe(T0 + 4);
    // A minute of running past the saved mark does save, the mark without the charge.
    mono.now = MARK_INTERVAL_MS + 1;
    const saving = mark.used(clock.now());
    expect(saving).toBeInstanceOf(Promise);
    await finish();
    await saving;
    expect(store.mark).toBe(T0 + MARK_INTERVAL_MS + 1);
    expect(mark.used(clock.now())).toBeUndefined();
    expect(persist).toHaveBeenCalledTimes(1);
  });

  it('saves nothing for a time at or before the saved mark plus a minute, however often used', () => {
    const { mark, persist } = setup(T0 + 10 * MARK_INTERVAL_MS);
    for (let i = 0; i <= 10; i++) expect(mark.used(T0 + i * MARK_INTERVAL_MS)).toBeUndefined();
    expect(mark.used(T0 + 11 * MARK_INTERVAL_MS)).toBeUndefined();
    expect(persist).not.toHaveBeenCalled();
  });

  describe('flush (on close)', () => {
    it('saves a mark that moved past the saved one, even by less than a minute', async () => {
      const { mark, persist, store, finish } = setup();
      mark.used(T0 + 1);
      expect(persist).not.toHaveBeenCalled();
      const flushing = mark.flush();
      await vi.waitFor(() => expect(persist).toHaveBeenCalledTimes(1));
      await finish();
      await flushing;
      expect(store.mark).toBe(T0 + 1);
    });

    it('saves nothing when the mark did not move past the saved one', async () => {
      const { clock, mark, persist } = setup();
      await mark.flush();
      clock.raise(T0);
      await mark.flush();
      expect(persist).not.toHaveBeenCalled();
    });

    it('waits for the save in flight, then saves only what moved after it', async () => {
      const { mark, persist, store, finish } = setup();
      mark.used(T0 + 2 * MARK_INTERVAL_MS);
      let flushed = false;
      const flushing = mark.flush().then(() => {
        flushed = true;
      });
      await Promise.resolve();
      expect(persist).toHaveBeenCalledTimes(1);
      expect(flushed).toBe(false);
      await finish();
      await flushing;
      // The save in flight wrote the mark: nothing more to save.
      expect(persist).toHaveBeenCalledTimes(1);
      expect(store.mark).toBe(T0 + 2 * MARK_INTERVAL_MS);

      mark.used(T0 + 4 * MARK_INTERVAL_MS);
      mark.used(T0 + 5 * MARK_INTERVAL_MS);
      const again = mark.flush();
      await finish();
      await vi.waitFor(() => expect(persist).toHaveBeenCalledTimes(3));
      await finish();
      await again;
      expect(store.mark).toBe(T0 + 5 * MARK_INTERVAL_MS);
    });
  });
});
