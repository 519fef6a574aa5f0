// The time mark follows use (DECISIONS.md "Trust while the app runs (fourth wave)"): a held lease
// found valid raises the clock to that time, and a use at or past the store's `usedUntil` (the time
// a restart resumes at, saved a minute ahead) saves at once, one save at a time; a failed save is
// tried again a minute of use later; close() saves what moved. On a real clock and a lease state
// whose saves the test finishes.
import { describe, expect, it, vi } from 'vitest';
import type { LeaseState } from '../lease/lease-state.js';
import { createTrustedClock, type TrustedClock } from '../lease/trusted-clock.js';
import { createUseMark, MARK_INTERVAL_MS } from './use-mark.js';

const T0 = Date.UTC(2030, 0, 1);
const MINUTE = MARK_INTERVAL_MS;

/** The client's clock: a restart's charge of a minute, as createLicensingClient sets it. */
function clockAt(mono = { now: 0 }): TrustedClock {
  return createTrustedClock({
    now: () => T0,
    monotonic: () => mono.now,
    toleranceMs: 60_000,
    restartChargeMs: MINUTE,
  });
}

/**
 * A lease state whose saves wait for `finish()` and then keep the clock's snapshot (mark and
 * usedUntil), or fail while `store.failing` is set; saved at first: mark T0, usedUntil T0 + 1 min.
 */
function setup(clock = clockAt(), saved = { mark: T0, usedUntil: T0 + MINUTE }) {
  const saves: Array<() => void> = [];
  const store = { ...saved, failing: false, error: undefined as Error | undefined };
  const persist = vi.fn(
    () =>
      new Promise<void>((resolve) => {
        const { timeMark, usedUntil } = clock.snapshot();
        saves.push(() => {
          if (store.failing) {
            store.error = new Error('unwritable');
          } else {
            Object.assign(store, { mark: timeMark, usedUntil, error: undefined });
          }
          resolve();
        });
      }),
  );
  const state = {
    persist,
    savedMark: () => store.mark,
    savedUsedUntil: () => store.usedUntil,
    saveError: () => store.error,
  } as unknown as LeaseState;
  const mark = createUseMark({ clock, state });
  /** Finishes the oldest save still running. */
  const finish = async () => {
    saves.shift()!();
    await Promise.resolve();
  };
  return { clock, mark, persist, store, finish };
}

describe('createUseMark', () => {
  it('saves when use reaches the saved usedUntil: a ms before it is not enough', () => {
    expect(MARK_INTERVAL_MS).toBe(60_000);
    const { clock, mark, persist } = setup();
    expect(mark.used(T0 + MINUTE - 1)).toBeUndefined();
    expect(persist).not.toHaveBeenCalled();
    // The clock holds the time all the same.
    expect(clock.mark).toBe(T0 + MINUTE - 1);
    expect(clock.now()).toBe(T0 + MINUTE - 1);
    const saving = mark.used(T0 + MINUTE);
    expect(saving).toBeInstanceOf(Promise);
    expect(persist).toHaveBeenCalledTimes(1);
    expect(clock.mark).toBe(T0 + MINUTE);
  });

  it('holds the time on the clock before it saves, so the save writes it and a minute ahead', async () => {
    const { mark, store, finish } = setup();
    const saving = mark.used(T0 + 2 * MINUTE);
    await finish();
    await expect(saving).resolves.toBeUndefined();
    expect(store.mark).toBe(T0 + 2 * MINUTE);
    expect(store.usedUntil).toBe(T0 + 3 * MINUTE);
  });

  it('starts one save at a time: uses while one runs only hold their time', async () => {
    const { clock, mark, persist, finish } = setup();
    const first = mark.used(T0 + 2 * MINUTE);
    expect(mark.used(T0 + 4 * MINUTE)).toBeUndefined();
    expect(persist).toHaveBeenCalledTimes(1);
    expect(clock.mark).toBe(T0 + 4 * MINUTE);
    await finish();
    await first;
    // Settled: the store resumes at three minutes, the clock is at four: the next use saves.
    const second = mark.used(T0 + 4 * MINUTE);
    expect(second).toBeInstanceOf(Promise);
    expect(persist).toHaveBeenCalledTimes(2);
    await finish();
    await second;
  });

  it('charges a restart: its first use saves the next usedUntil, and then once a minute, not after every save', async () => {
    // A restart resumed five minutes ahead of its clocks (the store's usedUntil). Its first use
    // is at that time: a kill now must not let the next start resume there again, so it saves a
    // minute further. The charge never reaches the mark (it is lease time used up, not a time
    // seen), and the next save comes a minute of use later.
    const mono = { now: 0 };
    const clock = clockAt(mono);
    clock.restore({ timeMark: T0, offsetMs: 0, usedUntil: T0 + 5 * MINUTE });
    const { mark, persist, store, finish } = setup(clock, { mark: T0, usedUntil: T0 + 5 * MINUTE });
    expect(clock.now()).toBe(T0 + 5 * MINUTE);
    const first = mark.used(clock.now());
    expect(first).toBeInstanceOf(Promise);
    await finish();
    await first;
    expect(store.usedUntil).toBe(T0 + 6 * MINUTE);
    expect(store.mark).toBe(T0);
    for (let i = 1; i < 5; i++) {
      mono.now = i;
      expect(mark.used(clock.now())).toBeUndefined();
    }
    expect(persist).toHaveBeenCalledTimes(1);
    expect(clock.mark).toBe(T0 + 4);
    mono.now = MINUTE;
    const next = mark.used(clock.now());
    expect(next).toBeInstanceOf(Promise);
    await finish();
    await next;
    expect(store.usedUntil).toBe(T0 + 7 * MINUTE);
    expect(store.mark).toBe(T0 + MINUTE);
    expect(persist).toHaveBeenCalledTimes(2);
  });

  it('saves nothing for a time before the saved usedUntil, however often used', () => {
    const { mark, persist } = setup(clockAt(), { mark: T0, usedUntil: T0 + 10 * MINUTE });
    for (let i = 0; i < 10; i++) expect(mark.used(T0 + i * MINUTE)).toBeUndefined();
    expect(mark.used(T0 + 10 * MINUTE - 1)).toBeUndefined();
    expect(persist).not.toHaveBeenCalled();
  });

  it('tries a store that failed to save again a minute of use later, not at every use', async () => {
    const { mark, persist, store, finish } = setup();
    store.failing = true;
    const failed = mark.used(T0 + MINUTE);
    await finish();
    await failed;
    expect(store.error).toBeDefined();
    for (let i = 1; i < 10; i++) expect(mark.used(T0 + MINUTE + i * 1000)).toBeUndefined();
    expect(persist).toHaveBeenCalledTimes(1);
    store.failing = false;
    const again = mark.used(T0 + 2 * MINUTE);
    expect(again).toBeInstanceOf(Promise);
    await finish();
    await again;
    expect(store.error).toBeUndefined();
    expect(store.usedUntil).toBe(T0 + 3 * MINUTE);
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
