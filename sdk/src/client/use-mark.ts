// The time mark follows use (DECISIONS.md "Trust while the app runs (fourth wave)"): whenever the
// client finds a held lease valid on a trusted time past the store's `usedUntil` (the time a
// restart resumes at, saved a minute ahead of the time judged), the mark rises to that time and
// the store is saved at once. An app killed at any moment has used its lease at most to the
// saved `usedUntil`, so a restart, whatever its clock reads, resumes no earlier: a restart costs
// at most a minute of lease, and never gains one.
import type { LeaseState } from '../lease/lease-state.js';
import type { TrustedClock } from '../lease/trusted-clock.js';

/** How far the running time may get ahead of the saved time mark before it is saved, in ms. */
export const MARK_INTERVAL_MS = 60_000;

/** What the client does when it finds a held lease valid (see {@link createUseMark}). */
export interface UseMark {
  /**
   * A held lease was found valid at `time` (the trusted time): the clock holds it (the running
   * time and the mark rise to it, less a restart's charge), and a `time` at or past the store's
   * `usedUntil` is saved (a new `usedUntil` {@link MARK_INTERVAL_MS} ahead). Returns that save
   * when one started (it never rejects), else undefined.
   */
  used(time: number): Promise<void> | undefined;
  /** Saves the mark when it moved past the saved one (on close). Never rejects. */
  flush(): Promise<void>;
}

/**
 * Creates the client's {@link UseMark} on its clock and lease state.
 *
 * @example
 * const mark = createUseMark({ clock, state });
 * if (lease.claims.exp * 1000 > clock.now()) void mark.used(clock.now());
 */
export function createUseMark(deps: { clock: TrustedClock; state: LeaseState }): UseMark {
  const { clock, state } = deps;
  let saving: Promise<void> | undefined;
  /** After a failed save, the time of use that tries again: a store that cannot be written is
   * tried once a minute of use, not on every check. */
  let retryAt = Number.NEGATIVE_INFINITY;

  const save = (time: number) => {
    saving ??= state.persist().finally(() => {
      saving = undefined;
      retryAt =
        state.saveError() === undefined ? Number.NEGATIVE_INFINITY : time + MARK_INTERVAL_MS;
    });
    return saving;
  };

  return {
    used(time) {
      clock.held(time);
      // `time` carries a restart's charge and so does `usedUntil`: a restart resumes at the saved
      // `usedUntil` and its first use saves the next one (each save covers a minute ahead).
      if (saving || time < Math.max(state.savedUsedUntil(), retryAt)) return undefined;
      return save(time);
    },
    async flush() {
      await saving;
      if (clock.mark > state.savedMark()) await save(clock.now());
    },
  };
}
