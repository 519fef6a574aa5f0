import pRetry from 'p-retry';
import { LicensingError } from '../errors.js';
import { abortableDelay } from '../internal/abortable-delay.js';
import { computeBackoffDelay } from '../internal/backoff.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { FailureReason } from '../types.js';
import { adviceFor, headlineOf, sentenceOf, sharedNetworkReason } from './combine-failures.js';
import type { AttemptOperation, StrategyDeps } from './strategy.js';

/**
 * Failures that say nothing is listening, or that the network is in the way (a proxy, a
 * certificate): retrying them at once loads no one.
 */
const IMMEDIATE_RETRY: ReadonlySet<FailureReason> = new Set([
  'connection-refused',
  'dns',
  'proxy',
  'tls',
]);

/**
 * Result of {@link tryMainAttempts}: the value, or the outage errors of every attempt and how the
 * last one failed.
 */
export type MainAttemptsResult<T> =
  | { ok: true; value: T }
  | { ok: false; errors: LicensingError[]; reason: FailureReason };

/**
 * Tries the main service up to `attempts` (default `mainAttempts`) times (Strategy A's and B's
 * "set number of attempts"), on p-retry. Outages are retried; a refusal (400/401/403/404) is thrown at once,
 * since the standby would not answer differently. The wait before a retry depends on the failure,
 * which p-retry's attempt-number schedule cannot express, so p-retry's own delay is 0 and the
 * wait happens in `onFailedAttempt` (which p-retry awaits): none after a refused connection or a
 * failed DNS lookup (nothing is overloaded; a wait only delays failover, bench row 3: 208 ms →
 * 20 ms), else jittered exponential backoff, or the server's `Retry-After` when longer (capped).
 */
export async function tryMainAttempts<T>(
  operation: AttemptOperation<T>,
  deps: StrategyDeps,
  signal?: AbortSignal,
  attempts: number = deps.failover.mainAttempts,
): Promise<MainAttemptsResult<T>> {
  const { failover, random, events } = deps;
  const errors: LicensingError[] = [];
  // How the last attempt failed ('network' until one did: p-retry always tries once).
  let reason: FailureReason = 'network';
  const isOutage = (error: unknown): error is FailedAttempt =>
    error instanceof FailedAttempt && error.verdict.outage;
  try {
    const value = await pRetry(() => operation('main', signal), {
      retries: attempts - 1,
      minTimeout: 0,
      maxTimeout: 0,
      ...(signal ? { signal } : {}),
      shouldRetry: ({ error }) => isOutage(error),
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (!isOutage(error)) return;
        const { verdict } = error;
        errors.push(verdict.error);
        reason = verdict.reason;
        const retryInMs =
          retriesLeft === 0
            ? undefined
            : IMMEDIATE_RETRY.has(verdict.reason)
              ? 0
              : Math.max(
                  computeBackoffDelay(attemptNumber - 1, {
                    baseMs: failover.backoffBaseMs,
                    maxMs: failover.backoffMaxMs,
                    random,
                  }),
                  Math.min(verdict.retryAfterMs ?? 0, failover.retryAfterMaxMs),
                );
        events.emit('attemptFailed', {
          service: 'main',
          attempt: attemptNumber,
          reason: verdict.reason,
          error: verdict.error,
          ...(retryInMs === undefined ? {} : { retryInMs }),
        });
        if (retryInMs) await abortableDelay(retryInMs, signal);
      },
    });
    return { ok: true, value };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (isOutage(error)) return { ok: false, errors, reason };
    if (error instanceof FailedAttempt) throw error.verdict.error;
    throw error;
  }
}

/**
 * Runs an operation only main offers with {@link tryMainAttempts}; when every attempt failed,
 * rejects with `SERVICE_UNAVAILABLE` whose cause is an AggregateError of the attempts, with
 * `reason: 'proxy'` or `'tls'` when every attempt failed that way (the message then says what
 * to check).
 */
export async function runOnMain<T>(
  operation: AttemptOperation<T>,
  deps: StrategyDeps,
  signal?: AbortSignal,
): Promise<T> {
  const main = await tryMainAttempts(operation, deps, signal);
  if (main.ok) return main.value;
  const reason = sharedNetworkReason(main.errors);
  const last = main.errors.at(-1);
  // Main's own message says what to do, unless the network was in the way every time.
  const detail =
    last === undefined
      ? "no attempt. Retry later; if it persists, check `mainUrl` and this computer's network."
      : reason === undefined
        ? sentenceOf(last)
        : `${headlineOf(last)} ${adviceFor(reason)}`;
  throw new LicensingError(
    'SERVICE_UNAVAILABLE',
    `The main licensing service failed (only main serves this call): ${detail}`,
    {
      cause: new AggregateError(main.errors, 'main attempts'),
      ...(reason === undefined ? {} : { reason }),
    },
  );
}
