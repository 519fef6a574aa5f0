/** Reason a per-attempt timeout aborts with; {@link isAttemptTimeout} recognises it. */
export class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** True for the reason of an {@link createAttemptSignal} timeout. */
export function isAttemptTimeout(value: unknown): value is AttemptTimeoutError {
  return value instanceof AttemptTimeoutError;
}

/** A signal for one HTTP attempt: the caller's signal merged with a per-attempt timeout. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** True once the timeout (not the caller) aborted the attempt. */
  readonly timedOut: boolean;
  /** Clears the timer; call when the attempt settles. */
  dispose(): void;
}

/**
 * Merges the caller's `signal` with a timeout built from `setTimeout` + `AbortController`
 * (not `AbortSignal.timeout`, which fake timers cannot advance), via `AbortSignal.any`.
 */
export function createAttemptSignal(timeoutMs: number, signal?: AbortSignal): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new AttemptTimeoutError(timeoutMs));
  }, timeoutMs);
  return {
    signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose: () => clearTimeout(timer),
  };
}
