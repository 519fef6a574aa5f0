/** Settings of the main service's circuit breaker (Strategy A). Durations in ms. */
export interface CircuitBreakerOptions {
  /** Consecutive calls on which every main attempt failed before the circuit opens. */
  failureThreshold: number;
  /** Wait before the first trial call, doubled after each failed trial, jittered ±50 %. */
  halfOpenAfterMs: number;
  /** Upper bound of that wait before jitter. */
  halfOpenMaxMs: number;
}

/** What a call may do on main: everything, one trial attempt, or nothing (go to the standby). */
export type Admission = 'pass' | 'trial' | 'skip';

/** Payload of the `circuitOpen` event. */
export interface CircuitOpenInfo {
  /** Consecutive failed calls (or failed trials) that opened it. */
  failures: number;
  /** When the next trial call may try main, in ms from now. */
  retryInMs: number;
}

/**
 * The main service's circuit breaker: closed (calls try main), open (calls skip main), half-open
 * (one call makes a single trial attempt while every other call goes straight to the standby).
 * A trial needs both the wait to have passed and at least one call to have skipped main since the
 * circuit (re)opened, so at most every other call of an outage tries main, however rarely the app
 * calls.
 */
export interface CircuitBreaker {
  readonly state: 'closed' | 'open' | 'half-open';
  /** Decides what the next call may do on main. `'trial'` moves the breaker to half-open. */
  admit(): Admission;
  /** Main answered (even with a refusal): it is reachable. Closes the circuit. */
  succeeded(): void;
  /** Every main attempt of a call (or the trial) failed with an outage. */
  failed(): void;
  /** The trial call was aborted before main said anything: the next call may try again. */
  abandoned(): void;
}

/** What {@link createCircuitBreaker} works with. */
export interface CircuitBreakerDeps {
  options: CircuitBreakerOptions;
  now: () => number;
  /** Random source in [0, 1) for the jitter. */
  random: () => number;
  onOpen: (info: CircuitOpenInfo) => void;
  onClose: () => void;
}

/**
 * Creates the breaker that bounds what an outage costs main under Strategy A (AWS SDK retry
 * quotas, gRPC retry throttling and cockatiel's circuit breaker solve the same problem). Written
 * by hand rather than on cockatiel: cockatiel's half-open state makes every concurrent call wait
 * for the trial (up to an attempt timeout when main hangs), where here they go to the standby at
 * once; and its jitter is not seedable. See docs/decisions/0018-herd-controls.md.
 */
export function createCircuitBreaker(deps: CircuitBreakerDeps): CircuitBreaker {
  const { options, now, random } = deps;
  let state: CircuitBreaker['state'] = 'closed';
  let failures = 0;
  let trials = 0;
  let openUntil = 0;
  /** Calls that skipped main since the circuit last opened. */
  let skipped = 0;

  const open = () => {
    const base = Math.min(options.halfOpenMaxMs, options.halfOpenAfterMs * 2 ** trials);
    const retryInMs = Math.round(base * (0.5 + random()));
    state = 'open';
    openUntil = now() + retryInMs;
    skipped = 0;
    deps.onOpen({ failures, retryInMs });
  };

  return {
    get state() {
      return state;
    },
    admit() {
      if (state === 'closed') return 'pass';
      if (state === 'half-open' || now() < openUntil || skipped === 0) {
        skipped += 1;
        return 'skip';
      }
      state = 'half-open';
      return 'trial';
    },
    succeeded() {
      const wasClosed = state === 'closed';
      state = 'closed';
      failures = 0;
      trials = 0;
      if (!wasClosed) deps.onClose();
    },
    failed() {
      failures += 1;
      if (state === 'half-open') {
        trials += 1;
        open();
      } else if (state === 'closed' && failures >= options.failureThreshold) {
        open();
      }
    },
    abandoned() {
      if (state === 'half-open') {
        state = 'open';
        openUntil = now();
      }
    },
  };
}
