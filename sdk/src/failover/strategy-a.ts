import { ApiResponseError, LicensingError, TokenInvalidError } from '../errors.js';
import { FailedAttempt } from '../transport/failed-attempt.js';
import type { LicensingService } from '../types.js';
import { type Admission, type CircuitBreaker, createCircuitBreaker } from './circuit-breaker.js';
import { combineFailures, NOT_TRIED } from './combine-failures.js';
import { type MainAttemptsResult, runOnMain, tryMainAttempts } from './main-attempts.js';
import type { AttemptOperation, FailoverStrategy, StrategyDeps } from './strategy.js';

/** True when main said something (a refusal, a bad token): it is reachable. */
function mainAnswered(error: unknown): boolean {
  return error instanceof ApiResponseError || error instanceof TokenInvalidError;
}

/**
 * Strategy A: every call tries the main service `mainAttempts` times, then the standby once.
 * `activeService` reports who served the last call; `failover`/`failback` fire when that changes.
 *
 * With `failover.breaker` (the default), an outage costs main a bounded number of attempts: after
 * `failureThreshold` consecutive calls on which main failed, calls go straight to the standby; a
 * single trial attempt on one call after a jittered, doubling wait tells when main is back.
 */
export function createStrategyA(deps: StrategyDeps): FailoverStrategy {
  let active: LicensingService = 'main';
  const options = deps.failover.breaker;
  const breaker: CircuitBreaker | undefined = options
    ? createCircuitBreaker({
        options,
        now: deps.now,
        random: deps.random,
        onOpen: (info) => deps.events.emit('circuitOpen', info),
        onClose: () => deps.events.emit('circuitClose', {}),
      })
    : undefined;
  const circuitOpen = new LicensingError(
    'SERVICE_UNAVAILABLE',
    'The main licensing service was not tried: its circuit is open after repeated failures. Check the main service (mainUrl); a later call tries it again.',
    { reason: NOT_TRIED },
  );

  /** Main's part of a call, as the breaker allows it; `undefined` when it was skipped. */
  async function tryMain<T>(
    operation: AttemptOperation<T>,
    signal: AbortSignal | undefined,
  ): Promise<MainAttemptsResult<T> | undefined> {
    const admission: Admission = breaker?.admit() ?? 'pass';
    if (admission === 'skip') return undefined;
    try {
      const main = await tryMainAttempts(
        operation,
        deps,
        signal,
        admission === 'trial' ? 1 : undefined,
      );
      if (main.ok) breaker?.succeeded();
      else breaker?.failed();
      return main;
    } catch (error) {
      if (!signal?.aborted && mainAnswered(error)) breaker?.succeeded();
      else if (admission === 'trial') breaker?.abandoned();
      throw error;
    }
  }

  return {
    get activeService() {
      return active;
    },
    async run<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T> {
      const main = await tryMain(operation, signal);
      if (main?.ok) {
        if (active === 'standby') {
          active = 'main';
          deps.events.emit('failback', { from: 'standby', to: 'main', reason: 'main-answered' });
        }
        return main.value;
      }
      const mainErrors = main ? main.errors : [circuitOpen];
      signal?.throwIfAborted();
      let value: T;
      try {
        value = await operation('standby', signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof FailedAttempt) {
          deps.events.emit('attemptFailed', {
            service: 'standby',
            attempt: 1,
            reason: error.verdict.reason,
            error: error.verdict.error,
          });
        }
        throw combineFailures(mainErrors, error);
      }
      if (active === 'main') {
        active = 'standby';
        deps.events.emit('failover', {
          from: 'main',
          to: 'standby',
          strategy: 'A',
          reason: main ? main.reason : NOT_TRIED,
          cause: mainErrors.at(-1),
        });
      }
      return value;
    },
    runOnMain: (operation, signal) => runOnMain(operation, deps, signal),
    close() {},
  };
}
