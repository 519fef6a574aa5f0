import { createDocumentCheck } from '../store/document-check.js';
import type { StateStore } from '../store/state-store.js';

/** The standby's API state. */
export type ApiState = 'dormant' | 'active';

interface StoredState {
  state: ApiState;
  /** A change that takes effect at `effectiveAt` (ms since the epoch, server clock). */
  pending?: { state: ApiState; effectiveAt: number };
}

/** Options of {@link loadStandbyState}. */
export interface StandbyStateOptions {
  /** State on first start (nothing stored yet). */
  initial: ApiState;
  /** Delay before a change takes effect, in ms, measured on `now`. */
  propagationDelayMs: number;
  now: () => number;
}

/** The dormant/active state, persisted, with the optional propagation delay. */
export interface StandbyState {
  /** The state in effect now (a pending change counts once its delay has passed). */
  current(): ApiState;
  /** The state in effect now and the change still on its way, if any (`effectiveAt` in ms). */
  view(): { state: ApiState; pending?: { state: ApiState; effectiveAt: number } };
  /**
   * Delay before a change takes effect, in ms; the admin API moves it (not stored: a restart or a
   * reset brings back the configured one). Changes already pending keep their time.
   */
  propagationDelayMs: number;
  /** Requests a change; it takes effect after the propagation delay. Resolves once stored. */
  set(state: ApiState): Promise<void>;
  /** Back to the initial state, no pending change. */
  /** Back to the initial state and the configured delay, no pending change. */
  reset(): Promise<void>;
}

const DOCUMENT = 'standby-state';

const STATES = ['dormant', 'active'];

const checkState = createDocumentCheck<StoredState>({
  type: 'object',
  required: ['state'],
  properties: {
    state: { type: 'string', enum: STATES },
    pending: {
      type: 'object',
      required: ['state', 'effectiveAt'],
      properties: { state: { type: 'string', enum: STATES }, effectiveAt: { type: 'integer' } },
    },
  },
});

/**
 * Loads the standby state from `store` (first start: `initial`).
 *
 * @example
 * const state = await loadStandbyState(app.store, { initial: 'dormant', propagationDelayMs: 0, now });
 * await state.set('active');
 */
export async function loadStandbyState(
  store: StateStore,
  options: StandbyStateOptions,
): Promise<StandbyState> {
  const stored = await store.read(DOCUMENT, checkState);
  let doc: StoredState = stored ?? { state: options.initial };
  // Stored at once, so a restart keeps the state the first start was given (`--state`).
  if (!stored) await store.write(DOCUMENT, doc);
  const save = (next: StoredState) => {
    doc = next;
    return store.write(DOCUMENT, next);
  };
  const current = (): ApiState => {
    const { pending } = doc;
    if (pending && options.now() >= pending.effectiveAt) doc = { state: pending.state };
    return doc.state;
  };
  const standby: StandbyState = {
    current,
    view() {
      const state = current();
      return doc.pending ? { state, pending: { ...doc.pending } } : { state };
    },
    propagationDelayMs: options.propagationDelayMs,
    set(state) {
      if (standby.propagationDelayMs === 0) return save({ state });
      return save({
        state: current(),
        pending: { state, effectiveAt: options.now() + standby.propagationDelayMs },
      });
    },
    reset() {
      standby.propagationDelayMs = options.propagationDelayMs;
      return save({ state: options.initial });
    },
  };
  return standby;
}
