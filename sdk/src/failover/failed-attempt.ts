import type { AttemptVerdict } from './classify-failure.js';

/** A classified failure of one HTTP attempt. */
export type AttemptFailure = Exclude<AttemptVerdict, { ok: true }>;

/**
 * Thrown by an attempt operation when the service answered badly, so the failover loop can
 * decide from the verdict. Internal: the loop unwraps it; callers only see `verdict.error`.
 */
export class FailedAttempt extends Error {
  override name = 'FailedAttempt';
  readonly verdict: AttemptFailure;

  constructor(verdict: AttemptFailure) {
    super(verdict.error.message, { cause: verdict.error });
    this.verdict = verdict;
  }
}
