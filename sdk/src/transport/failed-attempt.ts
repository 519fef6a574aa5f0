import type { FailureVerdict } from './classify-outcome.js';

/**
 * Thrown inside the SDK when an exchange with a service failed, carrying the classified verdict
 * so the failover loop (or the follower) can decide. Internal: it never leaves the public API;
 * callers only ever see `verdict.error`.
 */
export class FailedAttempt extends Error {
  override name = 'FailedAttempt';
  readonly verdict: FailureVerdict;

  constructor(verdict: FailureVerdict) {
    super(verdict.error.message, { cause: verdict.error });
    this.verdict = verdict;
  }
}

/** `verdict.error` for a {@link FailedAttempt}, anything else unchanged. */
export function unwrapFailedAttempt(error: unknown): unknown {
  return error instanceof FailedAttempt ? error.verdict.error : error;
}
