import type { LicensingService } from './classify-failure.js';
import { combineFailures } from './combine-failures.js';
import { FailedAttempt } from './failed-attempt.js';
import type { AttemptOperation, FailoverDeps, FailoverStrategy } from './failover-strategy.js';
import { tryMainAttempts } from './main-attempts.js';

/**
 * Strategy A: every call tries the main service `mainAttempts` times, then the standby once.
 * `activeService` reports who served the last call; `failover`/`failback` fire when that changes.
 */
export function createStrategyA(deps: FailoverDeps): FailoverStrategy {
  let active: LicensingService = 'main';
  return {
    get activeService() {
      return active;
    },
    async run<T>(operation: AttemptOperation<T>, signal?: AbortSignal): Promise<T> {
      const main = await tryMainAttempts(operation, deps, signal);
      if (main.ok) {
        if (active === 'standby') {
          active = 'main';
          deps.events.emit('failback', { from: 'standby', to: 'main', reason: 'main-answered' });
        }
        return main.value;
      }
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
        throw combineFailures(main.errors, error);
      }
      if (active === 'main') {
        active = 'standby';
        deps.events.emit('failover', {
          from: 'main',
          to: 'standby',
          strategy: 'A',
          cause: main.errors.at(-1),
        });
      }
      return value;
    },
    close() {},
  };
}
