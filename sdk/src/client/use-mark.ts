// The time mark follows use (DECISIONS.md "Trust while the app runs (fourth wave)"): whenever the
// client finds a held lease valid on a trusted time more than a minute past the saved mark, the
// mark rises to that time and is saved at once. An app killed at any moment has left a mark at
// most about a minute old, so restarting it with the clock set back gains at most that.
import type { LeaseState } from '../lease/lease-state.js';
import type { TrustedClock } from '../lease/trusted-clock.js';

/** How far the running time may get ahead of the saved time mark before it is saved, in ms. */
export const MARK_INTERVAL_MS = 60_000;

/** What the client does when it finds a held lease valid (see {@link createUseMark}). */
export interface UseMark {
  /**
   * A held lease was found valid at `time` (the trusted time): the clock holds it (the running
   * time and the mark rise to it, less a restart's charge), and a mark more than
   * {@link MARK_INTERVAL_MS} past the saved one is saved. Returns that save when one started (it
   * never rejects), else undefined.
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

  const save = () => {
    saving ??= state.persist().finally(() => {
      saving = undefined;
    });
    return saving;
  };

  return {
    used(time) {
      clock.held(time);
      // The mark, not `time`: a restart's charge is in `time` and never in the mark, so a charge
      // over a minute would otherwise start a save after every save.
      if (saving || clock.mark <= state.savedMark() + MARK_INTERVAL_MS) return undefined;
      return save();
    },
    async flush() {
      await saving;
      if (clock.mark > state.savedMark()) await save();
    },
  };
}
